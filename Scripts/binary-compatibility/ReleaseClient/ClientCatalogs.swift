// Catalogs declared in the client, as a binary SDK declares its own: the package's protocols, their
// default implementations and the generic bus, store and client are used across the resilient
// boundary, specialized for types the package never saw.

import Foundation
import SDKEventBusConfig
import SDKEventBusCore
import SDKEventBusWire

/// A shop's events: one of each replay rule.
enum CartEvent: String, EventCatalog {
    case itemAdded = "item.added"
    case checkout
    case cartState = "cart.state"

    typealias Payload = CartPayload

    var replayRule: ReplayRule {
        switch self {
        case .itemAdded: .none
        case .checkout: .sticky
        case .cartState: .latestOnRequest
        }
    }
}

/// One case per event, each wrapping its payload struct; the wire form comes from the package.
enum CartPayload: WireCodablePayload, Equatable {
    case itemAdded(ItemAddedPayload)
    case checkout(CheckoutPayload)
    case cartState(CartStatePayload)

    var event: CartEvent {
        switch self {
        case .itemAdded: .itemAdded
        case .checkout: .checkout
        case .cartState: .cartState
        }
    }

    static let payloadTypes: [any (TypedPayload & Decodable).Type] = [
        ItemAddedPayload.self, CheckoutPayload.self, CartStatePayload.self,
    ]
}

struct ItemAddedPayload: TypedPayload, Codable, Equatable {
    var sku: String
    var quantity: Int

    static var event: CartEvent { .itemAdded }
    init(sku: String, quantity: Int) {
        self.sku = sku
        self.quantity = quantity
    }
    init?(_ value: CartPayload) { if case .itemAdded(let payload) = value { self = payload } else { return nil } }
    var payloadValue: CartPayload { .itemAdded(self) }
}

struct CheckoutPayload: TypedPayload, Codable, Equatable {
    var total: Int

    static var event: CartEvent { .checkout }
    init(total: Int) { self.total = total }
    init?(_ value: CartPayload) { if case .checkout(let payload) = value { self = payload } else { return nil } }
    var payloadValue: CartPayload { .checkout(self) }
}

struct CartStatePayload: TypedPayload, Codable, Equatable {
    var items: Int

    static var event: CartEvent { .cartState }
    init(items: Int) { self.items = items }
    init?(_ value: CartPayload) { if case .cartState(let payload) = value { self = payload } else { return nil } }
    var payloadValue: CartPayload { .cartState(self) }
}

/// A facade of the client's own, as an SDK writes one: it names its bus and gets every verb.
final class CartSDK: CatalogSubscribing {
    let bus: CatalogBus<CartEvent>
    private let emitter: CatalogEmitter<CartEvent>

    init() { (bus, emitter) = CatalogBus<CartEvent>.makeBus() }

    /// Adds an item, announcing it with a payload struct.
    func add(_ sku: String, quantity: Int = 1) { emitter.fire(ItemAddedPayload(sku: sku, quantity: quantity)) }

    /// The emitter, for the checks that fire payload values.
    var firing: CatalogEmitter<CartEvent> { emitter }
}

/// A flag SDK's catalog with a configuration: the store and the client, generic over it.
enum FlagEvent: String, LifecycleCatalog {
    case initialized
    case flagsChanged = "flags.changed"

    typealias Payload = FlagPayload
    typealias Config = FlagSet

    var replayRule: ReplayRule { self == .initialized ? .sticky : .none }

    static func readyPayload(_ readiness: Readiness, config: FlagSet?) -> FlagPayload {
        .initialized(source: readiness.source.rawValue, flagCount: config?.flags.count ?? 0)
    }

    static func configUpdatedPayload(_ update: ConfigUpdate<FlagSet>) -> FlagPayload? {
        let keys = Set(update.current.flags.keys).union(update.previous?.flags.keys ?? [:].keys)
        let changed = keys.filter { update.current.flags[$0] != update.previous?.flags[$0] }.sorted()
        return changed.isEmpty ? nil : .flagsChanged(changed)
    }
}

/// The flag SDK's payloads, with values of its own (no struct per event: not every catalog has them).
enum FlagPayload: CatalogPayload, Equatable {
    case initialized(source: String, flagCount: Int)
    case flagsChanged([String])

    var event: FlagEvent {
        switch self {
        case .initialized: .initialized
        case .flagsChanged: .flagsChanged
        }
    }
}

/// The flag SDK's configuration: decoded strictly by the package, as a `Decodable` type.
struct FlagSet: RemoteConfig, Codable, Equatable {
    var flags: [String: Bool]
}
