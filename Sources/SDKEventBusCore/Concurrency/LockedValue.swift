#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Bionic)
    import Bionic
#else
    #error("SDKEventBus needs a platform lock")
#endif

/// A value guarded by a lock, in one allocation.
///
/// The package's shared mutable state is small and every operation on it is a few instructions, so
/// a lock taken briefly beats an actor hop. `Mutex` from the `Synchronization` module would do the
/// same but needs iOS 18 / macOS 15.
///
/// Never call user code or resume a continuation inside ``withLock(_:)``: return what must happen
/// and do it after the lock is released. The lock is not recursive: taking it again on the same
/// thread traps (`os_unfair_lock` on Apple platforms; an error-checking mutex in debug builds
/// elsewhere), and every pthread call's result is checked.
package struct LockedValue<Value>: @unchecked Sendable {
    // @unchecked: the value is only reached through `withLock`, which holds the lock, and `Value`
    // is required to be `Sendable` where it is created, so nothing non-sendable escapes it.

    #if canImport(Darwin)
        typealias Primitive = os_unfair_lock
    #else
        typealias Primitive = pthread_mutex_t
    #endif

    /// The value and its lock, tail-allocated together.
    final class Buffer: ManagedBuffer<Value, Primitive> {
        deinit {
            withUnsafeMutablePointerToElements { lock in
                #if !canImport(Darwin)
                    let result = pthread_mutex_destroy(lock)
                    precondition(result == 0, "pthread_mutex_destroy failed: \(result)")
                #endif
                lock.deinitialize(count: 1)
            }
        }
    }

    private let buffer: Buffer

    /// Creates the guarded value.
    package init(_ value: Value) where Value: Sendable {
        let buffer = Buffer.create(minimumCapacity: 1) { _ in value }
        buffer.withUnsafeMutablePointerToElements { lock in
            #if canImport(Darwin)
                lock.initialize(to: os_unfair_lock())
            #else
                lock.initialize(to: pthread_mutex_t())
                var attributes = pthread_mutexattr_t()
                pthread_mutexattr_init(&attributes)
                defer { pthread_mutexattr_destroy(&attributes) }
                #if DEBUG
                    // Traps on re-entrance and on unlocking from another thread, as Apple's lock does.
                    pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
                #endif
                let result = pthread_mutex_init(lock, &attributes)
                precondition(result == 0, "pthread_mutex_init failed: \(result)")
            #endif
        }
        self.buffer = unsafeDowncast(buffer, to: Buffer.self)
    }

    /// Runs `body` with exclusive access to the value.
    ///
    /// - Parameter body: Reads or changes the value. It must not call user code or block.
    /// - Returns: What `body` returns.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try buffer.withUnsafeMutablePointers { value, lock in
            #if canImport(Darwin)
                os_unfair_lock_lock(lock)
                defer { os_unfair_lock_unlock(lock) }
            #else
                let locked = pthread_mutex_lock(lock)
                precondition(locked == 0, "pthread_mutex_lock failed: \(locked) (taken twice on one thread?)")
                defer {
                    let unlocked = pthread_mutex_unlock(lock)
                    precondition(unlocked == 0, "pthread_mutex_unlock failed: \(unlocked)")
                }
            #endif
            return try body(&value.pointee)
        }
    }
}
