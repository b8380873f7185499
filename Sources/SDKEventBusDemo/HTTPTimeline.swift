import Foundation
import LoopbackHTTPServer
import SDKEventBus

/// The lifecycle against a real HTTP server on 127.0.0.1, with `URLSessionConfigFetchService` and a
/// file cache: a 503 retried → 200 with an ETag → a 304 (no event) → a changed config → a body cut
/// short, rejected; then, offline, a new client ready from the cache.
@MainActor
func playHTTPTimeline() async throws {
    let timeline = Timeline()
    let requests = LockedCounter()
    let server = try LoopbackHTTPServer { request in
        switch requests.next() {
        case 1: .init(status: 503, headers: ["Retry-After": "0"])
        case 2: .init(status: 200, headers: ["ETag": "\"v1\""], body: DemoConfigs.json(DemoConfigs.first))
        case 3 where request.headers["if-none-match"] == "\"v1\"": .init(status: 304, headers: ["ETag": "\"v1\""])
        case 3, 4: .init(status: 200, headers: ["ETag": "\"v2\""], body: DemoConfigs.json(DemoConfigs.updated))
        case 5: .init(status: 200, headers: ["ETag": "\"v3\""], body: DemoConfigs.truncated)
        default: .init(status: 304, headers: ["ETag": "\"v2\""])
        }
    }
    let cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("SDKEventBusDemo-\(UUID())")
    defer { try? FileManager.default.removeItem(at: cacheDirectory) }
    let cache = FileConfigCache(directory: cacheDirectory)
    let service = URLSessionConfigFetchService(
        .init(url: server.url(path: "/config/demo-key.json"), headers: ["Authorization": "Bearer demo-key"])
    )
    timeline.log("cdn", "serving on \(server.url(path: "/config/demo-key.json"))")
    timeline.log("sdk", "SDKClient created with URLSessionConfigFetchService and a file cache")
    let sdk = SDKClient(configuration: timeline.configuration(cache: cache), fetchService: service)

    await timeline.follow(until: applied(.first))
    try await sdk.ready()
    timeline.log("app", "ready() returned; status: \(sdk.status)")
    let updates = sdk.on(.configUpdated) { payload in
        guard case .configUpdated(let update) = payload else { return }
        timeline.log("app", "config.updated: traffic split is now \(DemoConfigs.split(update.snapshot))")
    }

    await timeline.follow(until: applied(.unchanged))
    timeline.log(
        "cdn",
        "request 3 carried If-None-Match \(server.receivedRequests[2].headers["if-none-match"] ?? "nothing"): answered 304, no event"
    )
    await timeline.follow(until: applied(.updated))
    await sdk.bus.flush()
    await timeline.follow(until: rejected)
    timeline.log("app", "status: \(sdk.status)")
    await sdk.off(updates)
    await sdk.shutdown()
    server.stop()
    timeline.log("cdn", "offline; the cache holds split \(DemoConfigs.split(try? cache.load()))")

    timeline.log("sdk", "a new SDKClient starts while the CDN is unreachable")
    let offline = SDKClient(configuration: timeline.configuration(cache: cache), fetchService: service)
    try await offline.ready()
    timeline.log(
        "app",
        "ready() returned from the cache: split \(DemoConfigs.split(offline.config)), source \(offline.status.source.map { "\($0)" } ?? "none")"
    )
    await timeline.follow { if case .fetchFailed = $0 { true } else { false } }
    timeline.log("app", "status: \(offline.status)")
    await offline.shutdown()
    timeline.log("sdk", "done")
}

/// Numbers the requests the demo's server receives.
final class LockedCounter: Sendable {
    private let lock = NSLock()
    private nonisolated(unsafe) var count = 0  // guarded by `lock`

    func next() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}
