import AnalyticsSDK

/// A stand-in for the analytics server: records every batch it is sent, and fails while told to.
final class UploadServer: Sendable {
    struct Unreachable: Error, CustomStringConvertible {
        var description: String { "the analytics server is unreachable" }
    }

    /// Every batch sent, in order, whether or not the upload failed.
    let batches = Locked<[[TrackedEvent]]>([])
    /// Whether uploads throw ``Unreachable``.
    let isFailing = Locked(false)

    /// The uploader to hand the SDK.
    var uploader: Analytics.Uploader {
        { [self] batch in
            batches.append(batch)
            if isFailing.value { throw Unreachable() }
        }
    }
}
