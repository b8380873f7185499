internal import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Bionic)
    import Bionic
#endif

/// The calling thread, for the firing context a timeline records: read only while one records.
enum CurrentThread {
    /// The thread's identity: the system's thread id on Apple platforms, the `pthread_t` elsewhere.
    static var id: UInt64 {
        #if canImport(Darwin)
            var id: UInt64 = 0
            pthread_threadid_np(nil, &id)
            return id
        #else
            return UInt64(UInt(pthread_self()))
        #endif
    }

    /// Whether it is the main thread.
    static var isMain: Bool { Thread.isMainThread }
}
