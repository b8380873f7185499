public import Foundation
import SDKEventBusCore

/// An event that app code publishes on an ``AppEventBus`` and subscribes to by its type.
///
/// Any `Sendable` type can be one; its type is its identity on the bus.
///
/// ```swift
/// struct UserDidLogin: AppEvent {
///     let userID: String
/// }
///
/// appBus.publish(UserDidLogin(userID: "42"))
/// ```
public protocol AppEvent: Sendable {}

/// An event as the all-events feed shows it: what was published, when, and from where.
///
/// ```swift
/// for await published in appBus.allEvents() {
///     logger.debug("\(published.date) \(published.source): \(published.event)")
/// }
/// ```
public struct PublishedEvent: Sendable, CustomStringConvertible {
    /// The event.
    public let event: any AppEvent
    /// When it was published.
    public let date: Date
    /// Where it was published: the file and line of the `publish` call, unless the publisher named
    /// another source.
    public let source: String

    /// A line for logs.
    public var description: String { "\(date) \(source): \(event)" }
}

/// A published event on its way through the engine: the value, and the facts of the feed.
///
/// A class, so that every lane and the feed share one copy, and so that a subscription of one type
/// reads its value without a dynamic cast (``TypedAppEventBox``).
class AppEventBox: @unchecked Sendable {
    // @unchecked: immutable; subclasses add only immutable `Sendable` values.

    /// When it was published; `nil` when the bus had no all-events feed then, so that publishing
    /// reads the clock only when someone can see the time.
    let date: Date?
    /// The source the publisher named, if any.
    let namedSource: String?
    let fileID: StaticString
    let line: UInt

    init(date: Date?, source: String?, fileID: StaticString, line: UInt) {
        self.date = date
        namedSource = source
        self.fileID = fileID
        self.line = line
    }

    /// The named source, or the file and line of the `publish` call: made only when the feed reads
    /// it, so that publishing never formats a string.
    var source: String { namedSource ?? "\(fileID):\(line)" }

    /// The event, as an existential.
    var event: any AppEvent { fatalError("TypedAppEventBox overrides it") }

    /// Calls `handler`, an erased handler of the box's event type, with the address of the event
    /// in the box: lent, not copied, and no generic metadata to look up.
    func lend(to handler: ErasedCallback) { fatalError("TypedAppEventBox overrides it") }

    /// The event for the all-events feed. (An event published while the bus's first feed was being
    /// subscribed may have no time of its own: it gets the time it reaches the feed.)
    var published: PublishedEvent { PublishedEvent(event: event, date: date ?? Date(), source: source) }
}

/// The box of an event of type `Event`.
final class TypedAppEventBox<Event: AppEvent>: AppEventBox, @unchecked Sendable {
    let value: Event

    init(_ value: Event, date: Date?, source: String?, fileID: StaticString, line: UInt) {
        self.value = value
        super.init(date: date, source: source, fileID: fileID, line: line)
    }

    override var event: any AppEvent { value }

    override func lend(to handler: ErasedCallback) {
        withUnsafePointer(to: value) { handler.function(UnsafeRawPointer($0)) }
    }
}

extension ErasedCallback {
    /// A callback of app-event boxes that lends each box's event to `handler`, an erased callback
    /// of the event's type: the one shape of every app-bus subscription.
    ///
    /// The wrapper is not generic, and the event is read in place: a handler costs one indirect
    /// call more than on a catalog bus, and no copy of the event.
    static func lending(_ handler: ErasedCallback) -> ErasedCallback {
        .erasing { (box: AppEventBox) in box.lend(to: handler) }
    }
}
