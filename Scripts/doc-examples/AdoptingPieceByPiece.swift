// What the examples of Docs/AdoptingPieceByPiece.md use without declaring it: the worked SDK's own
// fetcher, cache and scheduler, which the guide keeps rather than replaces. Nothing here runs.

public import Foundation

/// The SDK's own networking.
public struct FlagAPI: Sendable {
    public init() {}
    public func fetchFlags() async throws -> Flags { Flags(values: [:]) }
    /// A provider that returns `nil` when its request failed.
    public func latestFlags() async throws -> Flags? { nil }
    /// A conditional request: `nil` when the server answered 304 Not Modified.
    public func fetchFlagsIfModified() async throws -> Flags? { nil }
}

/// The SDK's own terminal errors.
public enum FlagAPIError: Error {
    case invalidKey
}

/// The SDK's own disk cache.
public struct FlagDiskCache: Sendable {
    public init() {}
    public func load() -> (flags: Flags, savedAt: Date)? { nil }
    public func save(_ flags: Flags) {}
}

/// The SDK's own scheduler, which keeps its own time.
public struct SDKScheduler: Sendable {
    public init() {}
    public var uptime: TimeInterval { ProcessInfo.processInfo.systemUptime }
    public func every(_ interval: TimeInterval, _ work: @escaping @Sendable () async -> Void) {}
    public func sleep(seconds: TimeInterval) async throws {}
}

/// Flags bundled with the app.
let bundledFlags = Flags(values: ["new-checkout": false])
