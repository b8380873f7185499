/// How to copy, move and destroy the payloads of one bus: all the engine knows of their type.
///
/// The engine is not generic: it keeps payloads as raw bytes in its queues and hands passes their
/// address. Generic code would run unspecialized for every catalog declared in another module
/// (and, called from another module, for the built-in one too), paying metadata lookups on every
/// fire; a layout made once per bus costs one indirect call per copy instead.
///
/// Moves go through the type's own move unless the type is bitwise-takable. Most Swift values are
/// (a class reference, a `String`, an array), and a byte copy is then their move; but a value that
/// holds a `weak` reference (to an Objective-C object on Apple platforms, to any object on Linux)
/// is not, and copying its bytes to a new address would leave the runtime's record of it behind.
package struct PayloadLayout: Sendable {
    /// The payload's size: the bytes a copy reads (none for an empty type such as `Void`, whose
    /// address may not be readable).
    let size: Int
    /// The payload's stride.
    let stride: Int
    /// The payload's alignment.
    let alignment: Int
    /// Whether the payload is plain bytes: copied with `memcpy`, destroyed by doing nothing.
    let isTrivial: Bool
    /// Whether a byte copy to a new address, forgetting the old one, moves the payload.
    let isBitwiseTakable: Bool
    /// Initializes the uninitialized memory at the first address with a copy of the payload at the
    /// second.
    let copy: @Sendable (UnsafeMutableRawPointer, UnsafeRawPointer) -> Void
    /// Moves the payload at the second address into the uninitialized memory at the first, leaving
    /// the second uninitialized: the type's own move.
    let move: @Sendable (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Void
    /// Deinitializes the payload at the address.
    let destroy: @Sendable (UnsafeMutableRawPointer) -> Void

    /// The layout of `Payload`.
    package static func of<Payload>(_: Payload.Type) -> PayloadLayout {
        PayloadLayout(
            size: MemoryLayout<Payload>.size,
            stride: MemoryLayout<Payload>.stride,
            alignment: MemoryLayout<Payload>.alignment,
            isTrivial: _isPOD(Payload.self),
            isBitwiseTakable: _isBitwiseTakable(Payload.self),
            copy: { target, source in
                target.initializeMemory(as: Payload.self, to: source.assumingMemoryBound(to: Payload.self).pointee)
            },
            move: { target, source in
                target.assumingMemoryBound(to: Payload.self).moveInitialize(
                    from: source.assumingMemoryBound(to: Payload.self), count: 1)
            },
            destroy: { payload in
                payload.assumingMemoryBound(to: Payload.self).deinitialize(count: 1)
            }
        )
    }

    /// Copies the payload at `source` into uninitialized memory at `target`.
    @inline(__always)
    func copy(to target: UnsafeMutableRawPointer, from source: UnsafeRawPointer) {
        if isTrivial {
            target.copyMemory(from: source, byteCount: size)
        } else {
            copy(target, source)
        }
    }

    /// Moves the payload at `source` into uninitialized memory at `target`; `source` is left
    /// uninitialized.
    @inline(__always)
    func move(to target: UnsafeMutableRawPointer, from source: UnsafeMutableRawPointer) {
        if isBitwiseTakable {
            target.copyMemory(from: source, byteCount: size)
        } else {
            move(target, source)
        }
    }

    /// Deinitializes the payload at `payload`.
    @inline(__always)
    func destroy(_ payload: UnsafeMutableRawPointer) {
        if !isTrivial { destroy(payload) }
    }
}
