/// A value in a reference: a field or enum payload of this type has the same layout whatever
/// `Value` is.
///
/// A generic type whose stored properties or payloads are all of fixed layout gets small
/// fixed-layout value witnesses from the compiler instead of large generic ones. So the package
/// boxes what is generic in the types it keeps: the waiters and outcomes of its state machines, the
/// configuration in ``LifecycleConfiguration``, ``ConfigUpdate`` and the store, the clock of a
/// ``ClockTimer``. A box is immutable: a new value takes a new box, so value semantics hold.
final class Boxed<Value> {
    /// The value.
    let value: Value

    /// Boxes `value`.
    init(_ value: Value) {
        self.value = value
    }
}

extension Boxed: Sendable where Value: Sendable {}

// A public value that keeps a field boxed (``ConfigUpdate``, ``LifecycleConfiguration``) prints,
// dumps and reflects that field as the value itself, as before it was boxed, not as a class name.
extension Boxed: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    var description: String { String(describing: value) }
    var debugDescription: String { String(reflecting: value) }
    var customMirror: Mirror { Mirror(reflecting: value) }
}
