import Foundation

#if canImport(UIKit)
    import UIKit
#endif

/// Forwards the app's foreground and low-power notifications to a lifecycle while it runs, where
/// the platform has them (UIKit); elsewhere it observes nothing, and the SDK calls
/// `handle(_:)` itself.
///
/// `ConfigLifecycle.run()` creates them, so every client has them, also one that fills a store the
/// SDK keeps. The logic they trigger is in `ConfigLifecycle.handle(_:)`, tested on every platform. Low power mode
/// is reported as the observers are created, when it is on, before the first fetch: it pauses only
/// periodic refreshes and retries once the SDK is ready, never the first fetch
/// (`lowPowerModeReportedAsTheClientStartsDoesNotHoldReadiness`).
final class AppLifecycleObservers: Sendable {
    private let tokens: [any NSObjectProtocol & Sendable]

    init(_ forward: @escaping @Sendable (AppLifecycleEvent) -> Void) {
        #if canImport(UIKit) && !os(watchOS)
            let center = NotificationCenter.default
            tokens = [
                center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil, queue: nil) {
                    _ in
                    forward(.willEnterForeground)
                },
                center.addObserver(forName: .NSProcessInfoPowerStateDidChange, object: nil, queue: nil) { _ in
                    forward(.lowPowerModeChanged(isEnabled: ProcessInfo.processInfo.isLowPowerModeEnabled))
                },
            ]
            if ProcessInfo.processInfo.isLowPowerModeEnabled { forward(.lowPowerModeChanged(isEnabled: true)) }
        #else
            _ = forward
            tokens = []
        #endif
    }

    deinit {
        for token in tokens { NotificationCenter.default.removeObserver(token) }
    }
}
