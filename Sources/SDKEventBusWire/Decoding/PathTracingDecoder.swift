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
/// Only a failed decode pays for it: `RemoteConfig.decode(from:)` decodes with a plain
/// `JSONDecoder` first. Its containers are small on purpose: each primitive `decode` forwards and,
/// only when that throws, hands the error to one shared, non-generic ``locate(_:decoding:at:_:)``.
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

    /// The error to throw for `error`, thrown while decoding `type` at `codingPath` (then `key`): a
    /// `DecodingError` or a failure located already passes through; anything else (the decoder's
    /// own error for a value it could not convert, a type's own error) is located here.
    static func locate(
        _ error: any Error, decoding type: Any.Type, at codingPath: [any CodingKey], _ key: (any CodingKey)? = nil
    ) -> any Error {
        if error is DecodingError || error is JSONDecodingError.Located { return error }
        return JSONDecodingError.Located(
            codingPath: key.map { codingPath + [$0] } ?? codingPath, type: type, underlying: error)
    }

    /// Whether `JSONDecoder` decodes `type` itself rather than through its `Decodable` conformance:
    /// such a type must reach it unwrapped to keep its behaviour (a URL from a string, `Data` from
    /// base64…).
    static func isDecodedSpecially(_ type: Any.Type) -> Bool {
        type == Date.self || type == Data.self || type == URL.self || type == Decimal.self
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
///
/// A class, so that the box needs no value witnesses of its own.
private final class PathTracingBox<Value: Decodable>: Decodable {
    let value: Value

    init(from decoder: any Decoder) throws {
        do {
            value = try Value(from: PathTracingDecoder(base: decoder))
        } catch {
            // The type's own error, or the decoder's for a value it could not take: this is where.
            throw PathTracingDecoder.locate(error, decoding: Value.self, at: decoder.codingPath)
        }
    }
}

/// A coding key for an array index, named as `JSONDecoder` names its own (`Index 0`), which is how
/// ``JSONDecodingError/path(_:)`` tells an index from a dictionary's key `"0"`.
private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }

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

    /// The located form of `error`, thrown decoding `type` for `key`.
    @inline(never)
    private func locate(_ error: any Error, _ type: Any.Type, _ key: Key) -> any Error {
        PathTracingDecoder.locate(error, decoding: type, at: codingPath, key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        do { return try base.decodeNil(forKey: key) } catch { throw locate(error, Never.self, key) }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        do { return try base.decode(type, forKey: key) } catch { throw locate(error, type, key) }
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        do { return try base.decode(type, forKey: key) } catch { throw locate(error, type, key) }
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        do { return try base.decode(type, forKey: key) } catch { throw locate(error, type, key) }
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        do { return try base.decode(type, forKey: key) } catch { throw locate(error, type, key) }
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        do { return try base.decode(type, forKey: key) } catch { throw locate(error, type, key) }
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        do { return try base.decode(type, forKey: key) } catch { throw locate(error, type, key) }
    }

    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        do { return try base.decode(type, forKey: key) } catch { throw locate(error, type, key) }
    }

    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        do { return try base.decode(type, forKey: key) } catch { throw locate(error, type, key) }
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        do { return try base.decode(type, forKey: key) } catch { throw locate(error, type, key) }
    }

    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        do { return try base.decode(type, forKey: key) } catch { throw locate(error, type, key) }
    }

    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        do { return try base.decode(type, forKey: key) } catch { throw locate(error, type, key) }
    }

    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        do { return try base.decode(type, forKey: key) } catch { throw locate(error, type, key) }
    }

    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        do { return try base.decode(type, forKey: key) } catch { throw locate(error, type, key) }
    }

    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        do { return try base.decode(type, forKey: key) } catch { throw locate(error, type, key) }
    }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        guard PathTracingDecoder.isDecodedSpecially(type) else {
            return try base.decode(PathTracingBox<Value>.self, forKey: key).value
        }
        do { return try base.decode(type, forKey: key) } catch { throw locate(error, type, key) }
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

    /// The located form of `error`, thrown decoding `type` at `index`, the current index before the
    /// decode.
    @inline(never)
    private func locate(_ error: any Error, _ type: Any.Type, _ index: Int) -> any Error {
        PathTracingDecoder.locate(error, decoding: type, at: codingPath, IndexKey(intValue: index))
    }

    mutating func decodeNil() throws -> Bool {
        let index = currentIndex
        do { return try base.decodeNil() } catch { throw locate(error, Never.self, index) }
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let index = currentIndex
        do { return try base.decode(type) } catch { throw locate(error, type, index) }
    }

    mutating func decode(_ type: String.Type) throws -> String {
        let index = currentIndex
        do { return try base.decode(type) } catch { throw locate(error, type, index) }
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        let index = currentIndex
        do { return try base.decode(type) } catch { throw locate(error, type, index) }
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        let index = currentIndex
        do { return try base.decode(type) } catch { throw locate(error, type, index) }
    }

    mutating func decode(_ type: Int.Type) throws -> Int {
        let index = currentIndex
        do { return try base.decode(type) } catch { throw locate(error, type, index) }
    }

    mutating func decode(_ type: Int8.Type) throws -> Int8 {
        let index = currentIndex
        do { return try base.decode(type) } catch { throw locate(error, type, index) }
    }

    mutating func decode(_ type: Int16.Type) throws -> Int16 {
        let index = currentIndex
        do { return try base.decode(type) } catch { throw locate(error, type, index) }
    }

    mutating func decode(_ type: Int32.Type) throws -> Int32 {
        let index = currentIndex
        do { return try base.decode(type) } catch { throw locate(error, type, index) }
    }

    mutating func decode(_ type: Int64.Type) throws -> Int64 {
        let index = currentIndex
        do { return try base.decode(type) } catch { throw locate(error, type, index) }
    }

    mutating func decode(_ type: UInt.Type) throws -> UInt {
        let index = currentIndex
        do { return try base.decode(type) } catch { throw locate(error, type, index) }
    }

    mutating func decode(_ type: UInt8.Type) throws -> UInt8 {
        let index = currentIndex
        do { return try base.decode(type) } catch { throw locate(error, type, index) }
    }

    mutating func decode(_ type: UInt16.Type) throws -> UInt16 {
        let index = currentIndex
        do { return try base.decode(type) } catch { throw locate(error, type, index) }
    }

    mutating func decode(_ type: UInt32.Type) throws -> UInt32 {
        let index = currentIndex
        do { return try base.decode(type) } catch { throw locate(error, type, index) }
    }

    mutating func decode(_ type: UInt64.Type) throws -> UInt64 {
        let index = currentIndex
        do { return try base.decode(type) } catch { throw locate(error, type, index) }
    }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        guard PathTracingDecoder.isDecodedSpecially(type) else {
            return try base.decode(PathTracingBox<Value>.self).value
        }
        let index = currentIndex
        do { return try base.decode(type) } catch { throw locate(error, type, index) }
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

    /// The located form of `error`, thrown decoding `type` here.
    @inline(never)
    private func locate(_ error: any Error, _ type: Any.Type) -> any Error {
        PathTracingDecoder.locate(error, decoding: type, at: codingPath)
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        do { return try base.decode(type) } catch { throw locate(error, type) }
    }

    func decode(_ type: String.Type) throws -> String {
        do { return try base.decode(type) } catch { throw locate(error, type) }
    }

    func decode(_ type: Double.Type) throws -> Double {
        do { return try base.decode(type) } catch { throw locate(error, type) }
    }

    func decode(_ type: Float.Type) throws -> Float {
        do { return try base.decode(type) } catch { throw locate(error, type) }
    }

    func decode(_ type: Int.Type) throws -> Int {
        do { return try base.decode(type) } catch { throw locate(error, type) }
    }

    func decode(_ type: Int8.Type) throws -> Int8 {
        do { return try base.decode(type) } catch { throw locate(error, type) }
    }

    func decode(_ type: Int16.Type) throws -> Int16 {
        do { return try base.decode(type) } catch { throw locate(error, type) }
    }

    func decode(_ type: Int32.Type) throws -> Int32 {
        do { return try base.decode(type) } catch { throw locate(error, type) }
    }

    func decode(_ type: Int64.Type) throws -> Int64 {
        do { return try base.decode(type) } catch { throw locate(error, type) }
    }

    func decode(_ type: UInt.Type) throws -> UInt {
        do { return try base.decode(type) } catch { throw locate(error, type) }
    }

    func decode(_ type: UInt8.Type) throws -> UInt8 {
        do { return try base.decode(type) } catch { throw locate(error, type) }
    }

    func decode(_ type: UInt16.Type) throws -> UInt16 {
        do { return try base.decode(type) } catch { throw locate(error, type) }
    }

    func decode(_ type: UInt32.Type) throws -> UInt32 {
        do { return try base.decode(type) } catch { throw locate(error, type) }
    }

    func decode(_ type: UInt64.Type) throws -> UInt64 {
        do { return try base.decode(type) } catch { throw locate(error, type) }
    }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        guard PathTracingDecoder.isDecodedSpecially(type) else {
            return try base.decode(PathTracingBox<Value>.self).value
        }
        do { return try base.decode(type) } catch { throw locate(error, type) }
    }
}
