@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Counts the live instances of ``Tracked`` made with it: one tally per test, so that tests running
/// in parallel do not see each other's objects.
final class Tally: Sendable {
    private let value = LockedValue(0)

    /// How many of its objects are alive.
    var live: Int { value.withLock { $0 } }

    fileprivate func add(_ delta: Int) {
        value.withLock { $0 += delta }
    }
}

/// An object whose every `init` and `deinit` its tally counts: a leak leaves the count above zero,
/// a double free crashes or drives it below.
final class Tracked: Sendable {
    let tally: Tally
    let number: Int

    init(_ tally: Tally, number: Int = 0) {
        self.tally = tally
        self.number = number
        tally.add(1)
    }

    deinit {
        tally.add(-1)
    }
}

/// A class-bound protocol: its existential is a reference plus a witness table.
protocol Marked: AnyObject, Sendable {
    var number: Int { get }
}

extension Tracked: Marked {}

/// A payload that is not bitwise-takable (it holds a `weak` reference) and holds a strong reference
/// and a class-bound existential besides.
struct HeavyPayload: Sendable {
    let number: Int
    let strong: Tracked
    weak var weakTarget: Tracked?
    let marked: any Marked

    /// A payload numbered `number` whose references are new objects of `tally`, except the weak one.
    init(_ number: Int, tally: Tally, weakTarget: Tracked?) {
        self.number = number
        strong = Tracked(tally, number: number)
        self.weakTarget = weakTarget
        marked = Tracked(tally, number: number)
    }

    /// A payload numbered `number` with the given references.
    init(_ number: Int, strong: Tracked, marked: any Marked, weakTarget: Tracked?) {
        self.number = number
        self.strong = strong
        self.weakTarget = weakTarget
        self.marked = marked
    }

    /// Whether every reference still reads what it was made with.
    func isIntact(weakTarget expected: Tracked?) -> Bool {
        strong.number == number && marked.number == number && weakTarget === expected
    }
}

/// A catalog of a session: who the user is (sticky), their preferences (latest on request), and
/// pings (no replay), with payloads that hold references.
enum SessionEvent: String, EventCatalog {
    case userIdentified = "user.identified"
    case preferencesChanged = "preferences.changed"
    case ping

    typealias Payload = SessionPayload

    var replayRule: ReplayRule {
        switch self {
        case .userIdentified: .sticky
        case .preferencesChanged: .latestOnRequest
        case .ping: .none
        }
    }
}

enum SessionPayload: CatalogPayload {
    case userIdentified(HeavyPayload)
    case preferencesChanged(HeavyPayload)
    case ping(HeavyPayload)

    var event: SessionEvent {
        switch self {
        case .userIdentified: .userIdentified
        case .preferencesChanged: .preferencesChanged
        case .ping: .ping
        }
    }

    var heavy: HeavyPayload {
        switch self {
        case .userIdentified(let payload), .preferencesChanged(let payload), .ping(let payload): payload
        }
    }
}
