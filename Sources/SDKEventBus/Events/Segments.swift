import SDKEventBusConfig

/// A visitor's segments: the attributes an SDK groups visitors by for reporting.
///
/// Every field is optional: an SDK reports the segments it knows. The field names match the
/// segments object of the same SDK in other languages.
///
/// ```swift
/// let segments = Segments(country: "DE", devices: ["desktop"], customSegments: ["10033690"])
/// ```
public struct Segments: Sendable, Equatable, Codable {
    /// The visitor's browser, for example `"CH"` or `"FF"`.
    public var browser: String?
    /// The visitor's device classes, for example `["desktop"]`.
    public var devices: [String]?
    /// The traffic source, for example `"direct"` or `"search"`.
    public var source: String?
    /// The marketing campaign the visitor arrived from.
    public var campaign: String?
    /// Whether the visitor is `"new"` or `"returning"`.
    public var visitorType: String?
    /// The visitor's country as an ISO 3166-1 alpha-2 code.
    public var country: String?
    /// The ids of the custom segments the visitor belongs to.
    public var customSegments: [String]?

    /// Creates a set of segments; leave out what the SDK does not know.
    ///
    /// - Parameters:
    ///   - browser: The visitor's browser.
    ///   - devices: The visitor's device classes.
    ///   - source: The traffic source.
    ///   - campaign: The marketing campaign.
    ///   - visitorType: `"new"` or `"returning"`.
    ///   - country: The visitor's country code.
    ///   - customSegments: The ids of the custom segments the visitor belongs to.
    public init(
        browser: String? = nil,
        devices: [String]? = nil,
        source: String? = nil,
        campaign: String? = nil,
        visitorType: String? = nil,
        country: String? = nil,
        customSegments: [String]? = nil
    ) {
        self.browser = browser
        self.devices = devices
        self.source = source
        self.campaign = campaign
        self.visitorType = visitorType
        self.country = country
        self.customSegments = customSegments
    }
}
