/// Something the app's lifecycle tells a configuration lifecycle, from an app-lifecycle hook.
///
/// On Apple platforms the client forwards UIKit's foreground and low-power notifications itself;
/// elsewhere, or with your own hooks, call ``CatalogClient/handle(_:)``.
///
/// Not closed: a later major release may add cases (a minor release does not; see Versioning), so a
/// `switch` over it ends with `@unknown default` after its cases, which a binary SDK's
/// library-evolution build requires anyway.
public enum AppLifecycleEvent: Sendable {
    /// The app came to the foreground: a stale configuration is refreshed.
    case willEnterForeground
    /// Low power mode was turned on or off: periodic refreshes and retries pause while it is on,
    /// once the SDK is ready, and one that fell due meanwhile runs as soon as it goes off.
    ///
    /// It never holds the first fetch, a retry that readiness waits for, the degraded deadline or
    /// a refresh on demand, so it may be reported before the lifecycle starts.
    case lowPowerModeChanged(isEnabled: Bool)
}
