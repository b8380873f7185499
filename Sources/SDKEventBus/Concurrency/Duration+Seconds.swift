extension Duration {
    /// The duration in seconds, as the `TimeInterval`-style `Double` that Dispatch and Foundation
    /// take.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
