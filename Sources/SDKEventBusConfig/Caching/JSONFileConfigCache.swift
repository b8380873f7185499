public import Foundation

/// Keeps the last good configuration in a file, written atomically, in a directory the caller
/// chooses (an app's caches or application-support directory, say).
///
/// The file holds the body the lifecycle hands to ``save(_:body:)`` (the body as served, when the
/// fetch service passes it on) and is read back through ``RemoteConfig/decode(from:)``, so
/// a truncated or tampered file is rejected like a malformed body, never half-applied; the
/// lifecycle then deletes it with ``clear()``. The file's modification date is ``lastSaved``.
///
/// Its methods are synchronous (a file of a few kilobytes), and satisfy the `async` requirements of
/// ``ConfigCache``.
///
/// ```swift
/// let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
/// var configuration = SDKConfiguration()
/// configuration.cache = JSONFileConfigCache<ProjectConfig>(directory: caches.appendingPathComponent("MySDK"))
/// ```
public struct JSONFileConfigCache<Config: RemoteConfig>: ConfigCache {
    /// The file the configuration is kept in.
    public let fileURL: URL

    /// Creates a cache in `directory`, which is created when the first configuration is saved.
    ///
    /// - Parameters:
    ///   - directory: The directory to keep the file in.
    ///   - fileName: The file's name.
    public init(directory: URL, fileName: String = "last-good-config.json") {
        fileURL = directory.appendingPathComponent(fileName, isDirectory: false)
    }

    /// Reads the cached configuration.
    ///
    /// The file is read and decoded on the calling task; the lifecycle calls it from its own.
    ///
    /// - Returns: The configuration, or `nil` when no file exists yet.
    /// - Throws: ``/SDKEventBusWire/JSONDecodingError`` when the file is not a valid configuration; the file
    ///   system's error when it cannot be read.
    public func load() throws -> Config? {
        guard FileManager.default.fileExists(atPath: fileURL.path) else { return nil }
        return try Config.decode(from: try Data(contentsOf: fileURL))
    }

    /// Replaces the cached configuration, atomically: a crash mid-write leaves the previous file.
    ///
    /// - Parameters:
    ///   - config: The configuration to keep.
    ///   - body: The bytes written to the file, which `Config.decode(from:)` reads back.
    /// - Throws: The file system's error when the file cannot be written.
    public func save(_ config: Config, body: Data) throws {
        try FileManager.default.createDirectory(
            at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        try body.write(to: fileURL, options: .atomic)
    }

    /// Deletes the file; does nothing when there is none.
    ///
    /// - Throws: The file system's error when the file exists and cannot be deleted.
    public func clear() throws {
        do {
            try FileManager.default.removeItem(at: fileURL)
        } catch {
            guard FileManager.default.fileExists(atPath: fileURL.path) else { return }
            throw error
        }
    }

    /// When the file was last written, from its modification date.
    public var lastSaved: Date? {
        (try? FileManager.default.attributesOfItem(atPath: fileURL.path))?[.modificationDate] as? Date
    }
}
