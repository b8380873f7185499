import SDKEventBus
import Testing

@testable import SDKEventBusAppEvents
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// A container runs a scope's own code — its `description`, `hash(into:)` and `==` — outside its
/// lock, so a scope that calls back into the container does not deadlock (in debug builds on Linux
/// the error-checking lock would trap), and a scope's `deinit` never runs under it either.
@Suite struct AppEventBusContainerTests {
    /// A scope whose code calls back into the container that holds it.
    struct ReentrantScope: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// Called from `description`, `hash(into:)` and `==`.
        let onUserCode: @Sendable () -> Void

        var description: String {
            onUserCode()
            return name
        }

        func hash(into hasher: inout Hasher) {
            onUserCode()
            hasher.combine(name)
        }

        static func == (lhs: ReentrantScope, rhs: ReentrantScope) -> Bool {
            lhs.onUserCode()
            return lhs.name == rhs.name
        }
    }

    /// A box for the container, so that a scope can reach it before it exists.
    final class ContainerBox: Sendable {
        let container = AppEventBusContainer<ReentrantScope>()
    }

    static func scope(_ name: String, box: ContainerBox, calls: Counter) -> ReentrantScope {
        ReentrantScope(name: name) { [weak box] in
            calls.increment()
            // Reads the container: under the container's lock this would take it again.
            _ = box?.container.scopes.count
        }
    }

    @Test func aScopeWhoseCodeCallsBackIntoTheContainerDoesNotDeadlock() async throws {
        let box = ContainerBox()
        let calls = Counter()
        let checkout = Self.scope("checkout", box: box, calls: calls)
        let profile = Self.scope("profile", box: box, calls: calls)

        let bus = box.container.bus(for: checkout)
        #expect(bus.name == "checkout", "named by the scope's description")
        #expect(box.container.bus(for: checkout) === bus)
        #expect(box.container.existingBus(for: checkout) === bus)
        try box.container.register(AppEventBus(name: "mine"), for: profile)
        #expect(throws: AppEventBusContainerError.alreadyRegistered(scope: "profile")) {
            try box.container.register(AppEventBus(), for: profile)
        }
        #expect(Set(box.container.scopes.map(\.name)) == ["checkout", "profile"])
        #expect(box.container.release(checkout))
        #expect(!box.container.release(checkout))
        #expect(box.container.existingBus(for: checkout) == nil)
        #expect(calls.count > 0, "the scope's code ran, and called back")
    }

    /// A scope whose `deinit` calls back into the container that holds it.
    final class ScopeObject: Hashable, Sendable {
        let name: String
        weak let holder: ObjectContainerBox?
        let released: Counter

        init(_ name: String, holder: ObjectContainerBox, released: Counter) {
            self.name = name
            self.holder = holder
            self.released = released
        }

        deinit {
            _ = holder?.container.scopes
            released.increment()
        }

        func hash(into hasher: inout Hasher) { hasher.combine(name) }

        static func == (lhs: ScopeObject, rhs: ScopeObject) -> Bool { lhs.name == rhs.name }
    }

    final class ObjectContainerBox: Sendable {
        let container = AppEventBusContainer<ScopeObject>()
    }

    @Test func aScopeReleasedByTheContainerDeinitializesOutsideItsLock() async {
        let holder = ObjectContainerBox()
        let released = Counter()
        _ = holder.container.bus(for: ScopeObject("settings", holder: holder, released: released))
        #expect(released.count == 0, "the container keeps its scope")
        holder.container.release(ScopeObject("settings", holder: holder, released: released))
        #expect(released.count == 2, "both scope objects were released, and called back without deadlock")
        #expect(holder.container.scopes.isEmpty)
    }
}
