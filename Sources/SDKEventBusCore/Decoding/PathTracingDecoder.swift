import Foundation

/// A decoder that forwards to another and says where a failure happened: the second pass that
/// locates an error `JSONDecoder` reported without a JSON path.
///
/// `JSONDecoder` (swift-corelibs-foundation) reports a number that does not fit its Swift type
/// (`1.5` or `99999999999999999999` into an `Int`, `1e39` into a `Float`) as "The given data was not
/// valid JSON", with an empty coding path; so does any error a type's own `init(from:)` throws
/// that is not a `DecodingError`. Decoding the body again through this decoder finds the place:
/// each container it hands out knows its coding path, turns such a failure into a
/// ``JSONDecodingError/Located`` that carries it, and decodes nested values through this decoder
/// too. Everything else is the wrapped decoder's own behaviour, so the second pass fails exactly
/// where the first did.
///
/// Only a failed decode pays for it: ``RemoteConfiguration/decode(from:)`` decodes with a plain
/// `JSONDecoder` first.
struct PathTracingDecoder: Decoder {
    let base: any Decoder

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    /// Decodes `type` from `body` through a path-tracing decoder, to locate the failure of a first
    /// pass.
    ///
    /// - Returns: The error of the second pass, located where it could be; `nil` when the second
    ///   pass succeeded.
    static func failure<Value: Decodable>(decoding type: Value.Type, from body: Data) -> (any Error)? {
        do {
            _ = try JSONDecoder().decode(PathTracingBox<Value>.self, from: body)
            return nil
        } catch {
            return error
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(TracingKeyedContainer(base: try base.container(keyedBy: type)))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        TracingUnkeyedContainer(base: try base.unkeyedContainer())
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        TracingSingleValueContainer(base: try base.singleValueContainer())
    }
}

/// A value decoded through a ``PathTracingDecoder``; a failure that has no path gets the decoder's.
private struct PathTracingBox<Value: Decodable>: Decodable {
    let value: Value

    init(from decoder: any Decoder) throws {
        do {
            value = try Value(from: PathTracingDecoder(base: decoder))
        } catch let error as DecodingError {
            throw error
        } catch let error as JSONDecodingError.Located {
            throw error
        } catch {
            // The type's own error, or the decoder's for a value it could not take: this is where.
            throw JSONDecodingError.Located(codingPath: decoder.codingPath, type: Value.self, underlying: error)
        }
    }
}

/// Types `JSONDecoder` decodes itself rather than through their `Decodable` conformance: they must
/// reach it unwrapped to keep its behaviour (a URL from a string, `Data` from base64…).
private func isDecodedSpecially(_ type: Any.Type) -> Bool {
    type == Date.self || type == Data.self || type == URL.self || type == Decimal.self
}

/// Runs a primitive decode of the wrapped container; a failure that is not a `DecodingError` (the
/// decoder's own error for a number that does not fit, say) is located at `codingPath`.
private func locating<Value>(_ type: Any.Type, at codingPath: [any CodingKey], _ decode: () throws -> Value) throws
    -> Value
{
    do {
        return try decode()
    } catch let error as DecodingError {
        throw error
    } catch let error as JSONDecodingError.Located {
        throw error
    } catch {
        throw JSONDecodingError.Located(codingPath: codingPath, type: type, underlying: error)
    }
}

/// A coding key for an array index.
private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }

    init(_ index: Int) {
        intValue = index
    }

    init?(stringValue: String) {
        nil
    }

    init?(intValue: Int) {
        self.intValue = intValue
    }
}

private struct TracingKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let base: KeyedDecodingContainer<Key>

    var codingPath: [any CodingKey] { base.codingPath }
    var allKeys: [Key] { base.allKeys }

    func contains(_ key: Key) -> Bool { base.contains(key) }

    func decodeNil(forKey key: Key) throws -> Bool {
        try locating(Never.self, at: codingPath + [key]) { try base.decodeNil(forKey: key) }
    }

    private func primitive<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try locating(type, at: codingPath + [key]) { try base.decode(type, forKey: key) }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try primitive(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try primitive(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try primitive(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try primitive(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try primitive(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try primitive(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try primitive(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try primitive(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try primitive(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try primitive(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try primitive(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try primitive(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try primitive(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try primitive(type, forKey: key) }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        if isDecodedSpecially(type) { return try primitive(type, forKey: key) }
        return try base.decode(PathTracingBox<Value>.self, forKey: key).value
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(
            TracingKeyedContainer<NestedKey>(base: try base.nestedContainer(keyedBy: type, forKey: key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        TracingUnkeyedContainer(base: try base.nestedUnkeyedContainer(forKey: key))
    }

    func superDecoder() throws -> any Decoder {
        PathTracingDecoder(base: try base.superDecoder())
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        PathTracingDecoder(base: try base.superDecoder(forKey: key))
    }
}

private struct TracingUnkeyedContainer: UnkeyedDecodingContainer {
    var base: any UnkeyedDecodingContainer

    var codingPath: [any CodingKey] { base.codingPath }
    var count: Int? { base.count }
    var isAtEnd: Bool { base.isAtEnd }
    var currentIndex: Int { base.currentIndex }

    private var here: [any CodingKey] { codingPath + [IndexKey(currentIndex)] }

    mutating func decodeNil() throws -> Bool {
        let here = self.here
        return try locating(Never.self, at: here) { try base.decodeNil() }
    }

    private mutating func primitive<Value: Decodable>(_ type: Value.Type) throws -> Value {
        let here = self.here
        return try locating(type, at: here) { try base.decode(type) }
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try primitive(type) }
    mutating func decode(_ type: String.Type) throws -> String { try primitive(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try primitive(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try primitive(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try primitive(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try primitive(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try primitive(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try primitive(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try primitive(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try primitive(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try primitive(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try primitive(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try primitive(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try primitive(type) }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        if isDecodedSpecially(type) { return try primitive(type) }
        return try base.decode(PathTracingBox<Value>.self).value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(TracingKeyedContainer<NestedKey>(base: try base.nestedContainer(keyedBy: type)))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        TracingUnkeyedContainer(base: try base.nestedUnkeyedContainer())
    }

    mutating func superDecoder() throws -> any Decoder {
        PathTracingDecoder(base: try base.superDecoder())
    }
}

private struct TracingSingleValueContainer: SingleValueDecodingContainer {
    let base: any SingleValueDecodingContainer

    var codingPath: [any CodingKey] { base.codingPath }

    func decodeNil() -> Bool { base.decodeNil() }

    private func primitive<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try locating(type, at: codingPath) { try base.decode(type) }
    }

    func decode(_ type: Bool.Type) throws -> Bool { try primitive(type) }
    func decode(_ type: String.Type) throws -> String { try primitive(type) }
    func decode(_ type: Double.Type) throws -> Double { try primitive(type) }
    func decode(_ type: Float.Type) throws -> Float { try primitive(type) }
    func decode(_ type: Int.Type) throws -> Int { try primitive(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try primitive(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try primitive(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try primitive(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try primitive(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try primitive(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try primitive(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try primitive(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try primitive(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try primitive(type) }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        if isDecodedSpecially(type) { return try primitive(type) }
        return try base.decode(PathTracingBox<Value>.self).value
    }
}
