import SDKEventBus

/// One `AsyncStream` per listener, each consumed by its own main-actor task.
@MainActor
final class AsyncStreamPeer: DeliveryPeer {
    nonisolated static let name = "AsyncStream per listener"
    var continuations: [AsyncStream<EventPayloadValue>.Continuation] = []
    var consumers: [Task<Void, Never>] = []

    init(listeners: Int, sink: Sink) async {
        for _ in 0..<listeners {
            let (stream, continuation) = AsyncStream.makeStream(of: EventPayloadValue.self)
            continuations.append(continuation)
            let deliver = callback(for: sink)
            consumers.append(
                Task { @MainActor in
                    for await payload in stream { deliver(payload) }
                })
        }
    }

    func fire(_ payload: EventPayloadValue) async {
        for continuation in continuations {
            continuation.yield(payload)
        }
    }

    isolated deinit {
        for continuation in continuations { continuation.finish() }
    }
}
