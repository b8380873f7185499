/// A value in a reference: a field or enum payload of this type has the same layout whatever
/// `Value` is.
///
/// The package's generic state machines keep their waiters in boxes, so that their own layout does
/// not depend on their generic parameters: the compiler then gives them small fixed-layout value
/// witnesses instead of large generic ones.
final class Boxed<Value> {
    /// The value.
    let value: Value

    /// Boxes `value`.
    init(_ value: Value) {
        self.value = value
    }
}

extension Boxed: Sendable where Value: Sendable {}
