public import Foundation

/// Keeps the last good configuration in a file, written atomically, in a directory the caller
/// chooses (an app's caches or application-support directory, say).
///
/// The file is written with ``RemoteConfiguration/encodedForCache()`` and read back through
/// ``RemoteConfiguration/decode(from:)``, so a truncated or tampered file is rejected like a
/// malformed body, never half-applied; the lifecycle then deletes it with ``clear()``. The file's
/// modification date is ``lastSaved``.
///
/// Its methods are synchronous (a file of a few kilobytes), and satisfy the `async` requirements of
/// ``ConfigCache``.
///
/// ```swift
/// let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
/// var configuration = SDKConfiguration()
/// configuration.cache = JSONFileConfigCache<ProjectConfig>(directory: caches.appendingPathComponent("MySDK"))
/// ```
public struct JSONFileConfigCache<Config: RemoteConfiguration>: ConfigCache {
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
    /// - Throws: ``ConfigCacheError`` with code ``ConfigCacheError/Code/unreadable`` or
    ///   ``ConfigCacheError/Code/corrupt``.
    public func load() throws(ConfigCacheError) -> Config? {
        guard FileManager.default.fileExists(atPath: fileURL.path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            throw ConfigCacheError(code: .unreadable, location: fileURL.path, underlying: error)
        }
        do {
            return try Config.decode(from: data)
        } catch {
            throw ConfigCacheError(code: .corrupt, location: fileURL.path, decodingError: error)
        }
    }

    /// Replaces the cached configuration, atomically: a crash mid-write leaves the previous file.
    ///
    /// - Parameter config: The configuration to keep.
    /// - Throws: ``ConfigCacheError`` with code ``ConfigCacheError/Code/unwritable``.
    public func save(_ config: Config) throws(ConfigCacheError) {
        do {
            try FileManager.default.createDirectory(
                at: fileURL.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try config.encodedForCache().write(to: fileURL, options: .atomic)
        } catch {
            throw ConfigCacheError(code: .unwritable, location: fileURL.path, underlying: error)
        }
    }

    /// Deletes the file; does nothing when there is none.
    ///
    /// - Throws: ``ConfigCacheError`` with code ``ConfigCacheError/Code/unwritable``.
    public func clear() throws(ConfigCacheError) {
        do {
            try FileManager.default.removeItem(at: fileURL)
        } catch {
            guard FileManager.default.fileExists(atPath: fileURL.path) else { return }
            throw ConfigCacheError(code: .unwritable, location: fileURL.path, underlying: error)
        }
    }

    /// When the file was last written, from its modification date.
    public var lastSaved: Date? {
        (try? FileManager.default.attributesOfItem(atPath: fileURL.path))?[.modificationDate] as? Date
    }
}
