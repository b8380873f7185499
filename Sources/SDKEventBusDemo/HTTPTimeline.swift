import Foundation
import LoopbackHTTPServer
import SDKEventBus
import SDKEventBusTesting

/// The lifecycle against a real HTTP server on 127.0.0.1, with `HTTPConfigFetchService<ProjectConfig>` and a
/// file cache: a 503 retried → 200 with an ETag → a 304 (no event) → a changed config → a body cut
/// short, rejected; then, offline, a new client ready from the cache.
///
/// The server logs each request as it answers it, so every line comes after what it reports.
@MainActor
func playHTTPTimeline() async throws {
    let timeline = Timeline()
    let requests = LockedCounter()
    let server = try LoopbackHTTPServer { request in
        let number = requests.next()
        let validator = request.headers["if-none-match"]
        let response: LoopbackHTTPServer.Response
        let said: String
        switch number {
        case 1:
            response = .init(status: 503, headers: ["Retry-After": "0"])
            said = "503 Service Unavailable, Retry-After: 0"
        case 2:
            response = .init(status: 200, headers: ["ETag": "\"v1\""], body: DemoConfigs.json(DemoConfigs.first))
            said = "200 with ETag \"v1\""
        case 3 where validator == "\"v1\"":
            response = .init(status: 304, headers: ["ETag": "\"v1\""])
            said = "304 Not Modified: the configuration has not changed"
        case 3, 4:
            response = .init(status: 200, headers: ["ETag": "\"v2\""], body: DemoConfigs.json(DemoConfigs.updated))
            said = "200 with ETag \"v2\": a new traffic split"
        case 5:
            response = .init(status: 200, headers: ["ETag": "\"v3\""], body: DemoConfigs.truncated)
            said = "200 with a body cut short"
        default:
            response = .init(status: 304, headers: ["ETag": "\"v2\""])
            said = "304 Not Modified"
        }
        let carried = validator.map { " (If-None-Match \($0))" } ?? ""
        timeline.log("cdn", "request \(number)\(carried): \(said)")
        return response
    }
    let cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("SDKEventBusDemo-\(UUID())")
    defer { try? FileManager.default.removeItem(at: cacheDirectory) }
    let cache = JSONFileConfigCache<ProjectConfig>(directory: cacheDirectory)
    let service = HTTPConfigFetchService<ProjectConfig>(
        url: server.url(path: "/config/demo-key.json"), headers: ["Authorization": "Bearer demo-key"])
    timeline.log("cdn", "serving on \(server.url(path: "/config/demo-key.json"))")
    timeline.log("sdk", "SDKClient created with HTTPConfigFetchService<ProjectConfig> and a file cache")
    let client = SDKClient(configuration: timeline.configuration(cache: cache), fetchService: service)
    let sdk = client.reader  // what app code holds; the SDK keeps the client

    let readiness = try await sdk.ready()
    timeline.log("app", "ready() returned \(readiness); status: \(sdk.status)")
    let updates = sdk.on(.configUpdated) { payload in
        guard case .configUpdated(let update) = payload else { return }
        timeline.log("app", "config.updated: traffic split is now \(DemoConfigs.split(update.snapshot))")
    }

    await timeline.follow(until: applied(.unchanged))
    timeline.log("app", "the 304 fired no event")
    await timeline.follow(until: applied(.updated))
    await sdk.bus.flush()
    await timeline.follow(until: rejected)
    timeline.log("app", "status: \(sdk.status)")
    await sdk.off(updates)
    let report = await client.shutdown()
    timeline.log("sdk", "shutdown() returned: \(report)")
    server.stop()
    timeline.log("cdn", "stopped: the server is offline")
    timeline.log("sdk", "the file cache holds split \(DemoConfigs.split(try? cache.load()))")

    timeline.log("sdk", "a new SDKClient starts while the CDN is unreachable")
    let offlineClient = SDKClient(configuration: timeline.configuration(cache: cache), fetchService: service)
    let offline = offlineClient.reader
    let cached = try await offline.ready()
    timeline.log("app", "ready() returned \(cached): split \(DemoConfigs.split(offline.config))")
    await timeline.follow { if case .fetchFailed = $0 { true } else { false } }
    timeline.log("app", "status: \(offline.status)")
    timeline.log("sdk", "shutdown() returned: \(await offlineClient.shutdown())")
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
