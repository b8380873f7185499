/// Whether the user lets the analytics SDK track.
public enum Consent: String, Sendable, Hashable {
    /// Events are queued and uploaded.
    case granted
    /// Nothing is queued; the queue was emptied when consent was denied.
    case denied
}
