import Foundation

/// A notification the app's platform posts that a configuration lifecycle reacts to.
///
/// Named by the notification's name string, which is the same as the framework constant's
/// (`UIApplication.willEnterForegroundNotification` is `UIApplicationWillEnterForegroundNotification`),
/// so that every platform's table is plain data, compiled and tested on every platform; only
/// reading low power mode needs the platform.
struct AppLifecycleTrigger: Sendable {
    /// The notification.
    let name: Notification.Name
    /// What it tells the lifecycle, read when it is posted.
    let event: @Sendable () -> AppLifecycleEvent

    /// Foreground on iOS, iPadOS, tvOS and visionOS: UIKit's `willEnterForegroundNotification`.
    static let uiKitForeground = Self(name: .init("UIApplicationWillEnterForegroundNotification")) {
        .willEnterForeground
    }
    /// Foreground on macOS: AppKit's `NSApplication.didBecomeActiveNotification`, posted when the app
    /// becomes the active one, the Mac's nearest equivalent of coming to the foreground.
    static let appKitForeground = Self(name: .init("NSApplicationDidBecomeActiveNotification")) {
        .willEnterForeground
    }
    /// Foreground on watchOS: WatchKit's `willEnterForegroundNotification`.
    static let watchKitForeground = Self(name: .init("WKApplicationWillEnterForegroundNotification")) {
        .willEnterForeground
    }
    /// Low power mode turned on or off: Foundation's `NSProcessInfoPowerStateDidChange`.
    static let lowPowerMode = Self(name: .init("NSProcessInfoPowerStateDidChangeNotification")) {
        .lowPowerModeChanged(isEnabled: isLowPowerModeEnabled)
    }

    /// What the platform this runs on posts: nothing on Linux and Windows, where the SDK forwards
    /// its own hooks to `CatalogClient.handle(_:)`.
    static var platform: [Self] {
        #if os(macOS)
            [appKitForeground, lowPowerMode]
        #elseif os(watchOS)
            [watchKitForeground]
        #elseif canImport(UIKit)
            [uiKitForeground, lowPowerMode]
        #else
            []
        #endif
    }

    /// Whether low power mode is on, where the platform reports it; `false` elsewhere.
    static var isLowPowerModeEnabled: Bool {
        #if os(macOS)
            if #available(macOS 12, *) { return ProcessInfo.processInfo.isLowPowerModeEnabled }
            return false
        #elseif canImport(UIKit) && !os(watchOS)
            return ProcessInfo.processInfo.isLowPowerModeEnabled
        #else
            return false
        #endif
    }
}

/// Forwards the app's foreground and low-power notifications to a lifecycle while it runs.
///
/// `ConfigLifecycle.run()` creates them with the platform's triggers, so every client has them, also
/// one that fills a store the SDK keeps. The logic a notification triggers is in
/// `ConfigLifecycle.handle(_:)`, and every platform's table is tested on every platform, through a
/// notification center of the test's own. Low power mode is reported as the observers are created,
/// when it is on, before the first fetch: it pauses only periodic refreshes and retries once the SDK
/// is ready, never the first fetch (`lowPowerModeReportedAsTheClientStartsDoesNotHoldReadiness`).
final class AppLifecycleObservers: Sendable {
    private let center: NotificationCenter
    /// Written once, in `init`, and read only in `deinit`: no two threads ever touch it at once.
    nonisolated(unsafe) private let tokens: [any NSObjectProtocol]

    /// Observes `triggers` on `center` and forwards what each says.
    init(
        center: NotificationCenter = .default,
        triggers: [AppLifecycleTrigger] = AppLifecycleTrigger.platform,
        forward: @escaping @Sendable (AppLifecycleEvent) -> Void
    ) {
        self.center = center
        tokens = triggers.map { trigger in
            center.addObserver(forName: trigger.name, object: nil, queue: nil) { _ in forward(trigger.event()) }
        }
        if triggers.contains(where: { $0.name == AppLifecycleTrigger.lowPowerMode.name }),
            AppLifecycleTrigger.isLowPowerModeEnabled
        {
            forward(.lowPowerModeChanged(isEnabled: true))
        }
    }

    deinit {
        for token in tokens { center.removeObserver(token) }
    }
}
