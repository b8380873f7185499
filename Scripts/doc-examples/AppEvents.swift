// What Docs/AppEvents.md's examples use without declaring it.

import SDKEventBus

/// Shows a playlist's order on screen.
@MainActor func render(_ order: [Int]) {}

/// A cart's item count changed.
struct CartChanged: AppEvent {
    let items: Int
}

/// A view model that shows the cart's item count.
@MainActor final class CartSummary: Sendable {
    var items = 0
}

@MainActor let summary = CartSummary()

/// Where the app logs.
struct Logger: Sendable {
    func debug(_ message: String) {}
}

let logger = Logger()
