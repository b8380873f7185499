public import SDKEventBusConfig

// The built-in payload structs as the typed payloads of the built-in catalog.

extension ReadyPayload: TypedPayload {
    /// The event this payload belongs to: ``SystemEvent/ready``.
    public static var event: SystemEvent { .ready }

    /// Extracts the payload from a ``EventPayloadValue/ready(_:)`` value.
    ///
    /// - Parameter value: A payload value; `nil` results for any other event.
    public init?(_ value: EventPayloadValue) {
        guard case .ready(let payload) = value else { return nil }
        self = payload
    }

    /// The payload wrapped as ``EventPayloadValue/ready(_:)``.
    public var payloadValue: EventPayloadValue { .ready(self) }
}

extension ConfigUpdatedPayload: TypedPayload {
    /// The event this payload belongs to: ``SystemEvent/configUpdated``.
    public static var event: SystemEvent { .configUpdated }

    /// Extracts the payload from a ``EventPayloadValue/configUpdated(_:)`` value.
    ///
    /// - Parameter value: A payload value; `nil` results for any other event.
    public init?(_ value: EventPayloadValue) {
        guard case .configUpdated(let payload) = value else { return nil }
        self = payload
    }

    /// The payload wrapped as ``EventPayloadValue/configUpdated(_:)``.
    public var payloadValue: EventPayloadValue { .configUpdated(self) }
}

extension ApiQueueReleasedPayload: TypedPayload {
    /// The event this payload belongs to: ``SystemEvent/apiQueueReleased``.
    public static var event: SystemEvent { .apiQueueReleased }

    /// Extracts the payload from a ``EventPayloadValue/apiQueueReleased(_:)`` value.
    ///
    /// - Parameter value: A payload value; `nil` results for any other event.
    public init?(_ value: EventPayloadValue) {
        guard case .apiQueueReleased(let payload) = value else { return nil }
        self = payload
    }

    /// The payload wrapped as ``EventPayloadValue/apiQueueReleased(_:)``.
    public var payloadValue: EventPayloadValue { .apiQueueReleased(self) }
}

extension BucketingPayload: TypedPayload {
    /// The event this payload belongs to: ``SystemEvent/bucketing``.
    public static var event: SystemEvent { .bucketing }

    /// Extracts the payload from a ``EventPayloadValue/bucketing(_:)`` value.
    ///
    /// - Parameter value: A payload value; `nil` results for any other event.
    public init?(_ value: EventPayloadValue) {
        guard case .bucketing(let payload) = value else { return nil }
        self = payload
    }

    /// The payload wrapped as ``EventPayloadValue/bucketing(_:)``.
    public var payloadValue: EventPayloadValue { .bucketing(self) }
}

extension ConversionPayload: TypedPayload {
    /// The event this payload belongs to: ``SystemEvent/conversion``.
    public static var event: SystemEvent { .conversion }

    /// Extracts the payload from a ``EventPayloadValue/conversion(_:)`` value.
    ///
    /// - Parameter value: A payload value; `nil` results for any other event.
    public init?(_ value: EventPayloadValue) {
        guard case .conversion(let payload) = value else { return nil }
        self = payload
    }

    /// The payload wrapped as ``EventPayloadValue/conversion(_:)``.
    public var payloadValue: EventPayloadValue { .conversion(self) }
}

extension SegmentsPayload: TypedPayload {
    /// The event this payload belongs to: ``SystemEvent/segments``.
    public static var event: SystemEvent { .segments }

    /// Extracts the payload from a ``EventPayloadValue/segments(_:)`` value.
    ///
    /// - Parameter value: A payload value; `nil` results for any other event.
    public init?(_ value: EventPayloadValue) {
        guard case .segments(let payload) = value else { return nil }
        self = payload
    }

    /// The payload wrapped as ``EventPayloadValue/segments(_:)``.
    public var payloadValue: EventPayloadValue { .segments(self) }
}

extension LocationActivatedPayload: TypedPayload {
    /// The event this payload belongs to: ``SystemEvent/locationActivated``.
    public static var event: SystemEvent { .locationActivated }

    /// Extracts the payload from a ``EventPayloadValue/locationActivated(_:)`` value.
    ///
    /// - Parameter value: A payload value; `nil` results for any other event.
    public init?(_ value: EventPayloadValue) {
        guard case .locationActivated(let payload) = value else { return nil }
        self = payload
    }

    /// The payload wrapped as ``EventPayloadValue/locationActivated(_:)``.
    public var payloadValue: EventPayloadValue { .locationActivated(self) }
}

extension LocationDeactivatedPayload: TypedPayload {
    /// The event this payload belongs to: ``SystemEvent/locationDeactivated``.
    public static var event: SystemEvent { .locationDeactivated }

    /// Extracts the payload from a ``EventPayloadValue/locationDeactivated(_:)`` value.
    ///
    /// - Parameter value: A payload value; `nil` results for any other event.
    public init?(_ value: EventPayloadValue) {
        guard case .locationDeactivated(let payload) = value else { return nil }
        self = payload
    }

    /// The payload wrapped as ``EventPayloadValue/locationDeactivated(_:)``.
    public var payloadValue: EventPayloadValue { .locationDeactivated(self) }
}

extension AudiencesPayload: TypedPayload {
    /// The event this payload belongs to: ``SystemEvent/audiences``.
    public static var event: SystemEvent { .audiences }

    /// Extracts the payload from a ``EventPayloadValue/audiences(_:)`` value.
    ///
    /// - Parameter value: A payload value; `nil` results for any other event.
    public init?(_ value: EventPayloadValue) {
        guard case .audiences(let payload) = value else { return nil }
        self = payload
    }

    /// The payload wrapped as ``EventPayloadValue/audiences(_:)``.
    public var payloadValue: EventPayloadValue { .audiences(self) }
}

extension DataStoreQueueReleasedPayload: TypedPayload {
    /// The event this payload belongs to: ``SystemEvent/dataStoreQueueReleased``.
    public static var event: SystemEvent { .dataStoreQueueReleased }

    /// Extracts the payload from a ``EventPayloadValue/dataStoreQueueReleased(_:)`` value.
    ///
    /// - Parameter value: A payload value; `nil` results for any other event.
    public init?(_ value: EventPayloadValue) {
        guard case .dataStoreQueueReleased(let payload) = value else { return nil }
        self = payload
    }

    /// The payload wrapped as ``EventPayloadValue/dataStoreQueueReleased(_:)``.
    public var payloadValue: EventPayloadValue { .dataStoreQueueReleased(self) }
}
