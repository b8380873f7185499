package import struct Foundation.Data

/// Checks that a body is well-formed UTF-8 JSON in one pass, and says exactly where it is not.
///
/// `JSONDecoder` reports syntax errors without a location, accepts duplicate keys and byte order
/// marks, and recurses on nesting. This validator runs first: it is iterative (a 10,000-deep body
/// cannot overflow the stack), strict (RFC 8259: no leading zeros, no lone surrogates, no control
/// characters in strings), rejects duplicate keys, and reports the byte, line, column and JSON
/// path of the first problem. What remains for the decoder is types and required fields.
///
/// It reads the body's tokens from a ``JSONTokenizer``, which checks the grammar, and adds what a
/// configuration needs: UTF-8 (a leading UTF-8 byte order mark is skipped, as RFC 8259 §8.1 lets a
/// parser do; UTF-16 is rejected), a bounded depth, unique keys, finite numbers, and the path of
/// every error.
///
/// It is linear in the size of the body. The keys seen so far live in one ``JSONKeyTable`` for the
/// whole body, each with the object it belongs to, so that a key costs one insertion whatever the
/// size of its object, and the container stack holds only plain values. Only a key with escapes
/// is decoded. The JSON path and the line and column are worked out only for an error.
///
/// A validator is never copied, and says so (`~Copyable`), which spares it the copying witnesses.
package struct JSONSyntaxValidator: ~Copyable {
    /// A container being scanned, with where the scan is in it, which is what an error's path needs.
    private enum Container {
        /// An object, numbered in the order objects open, with the key whose value is being
        /// scanned, or was last (`nil` before the first key).
        case object(ordinal: Int, currentKey: JSONTokenizer.StringContents?)
        /// An array, with the index of the element being scanned (once an element is complete, of
        /// the next one).
        case array(nextIndex: Int)
    }

    private var tokenizer: JSONTokenizer
    private let maximumDepth: Int
    private var stack: [Container] = []
    /// Every key seen so far, in every object.
    private var keys: JSONKeyTable
    /// How many objects have opened so far: the next object's ordinal.
    private var openedObjects = 0

    private init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        tokenizer = JSONTokenizer(bytes, from: JSONTokenizer.byteOrderMarkLength(of: bytes))
        self.maximumDepth = maximumDepth
        keys = JSONKeyTable(body: bytes)
    }

    /// Validates `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: The body.
    ///   - maximumDepth: How deep objects and arrays may nest.
    ///   - requiresObject: Whether a valid body whose value is not an object is an error
    ///     (`invalidSyntax` at the value's first byte), as for an event's wire form.
    /// - Throws: A ``JSONDecodingError`` with code `emptyBody`, `invalidEncoding`,
    ///   `invalidSyntax`, `nestingTooDeep`, `duplicateKey` or `numberOutOfRange`.
    static func validate(
        _ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int, requiresObject: Bool = false
    ) throws(JSONDecodingError) {
        var validator = JSONSyntaxValidator(bytes: bytes, maximumDepth: maximumDepth)
        try validator.run(requiresObject: requiresObject)
    }

    /// Validates `data`.
    ///
    /// - Throws: A ``JSONDecodingError``, as for the body's bytes.
    package static func validate(_ data: Data, maximumDepth: Int) throws(JSONDecodingError) {
        try validate(data, maximumDepth: maximumDepth, requiresObject: false)
    }

    /// Validates `data`, whose value must be an object when `requiresObject`, as an event's wire
    /// form's must.
    ///
    /// - Throws: A ``JSONDecodingError``, as for the body's bytes.
    @inline(never)
    static func validate(_ data: Data, maximumDepth: Int, requiresObject: Bool) throws(JSONDecodingError) {
        let result = data.withUnsafeBytes { raw -> Result<Void, JSONDecodingError> in
            Result { () throws(JSONDecodingError) in
                try validate(raw.bindMemory(to: UInt8.self), maximumDepth: maximumDepth, requiresObject: requiresObject)
            }
        }
        try result.get()
    }

    private mutating func run(requiresObject: Bool) throws(JSONDecodingError) {
        try checkEncoding()
        while true {
            let token: JSONTokenizer.Token?
            do {
                token = try tokenizer.next()
            } catch {
                throw self.error(error)
            }
            switch token {
            case nil:
                if requiresObject { try checkTopLevelIsObject() }
                return
            case .beginObject:
                try open(.object(ordinal: openedObjects, currentKey: nil))
                openedObjects += 1
                continue
            case .beginArray:
                try open(.array(nextIndex: 0))
                continue
            case .key(let key):
                try record(key)
                continue
            case .endObject, .endArray:
                stack.removeLast()
            case .number(let number):
                try check(number)
            case .string, .true, .false, .null:
                break
            }
            valueEnded()
        }
    }

    private mutating func open(_ container: Container) throws(JSONDecodingError) {
        guard stack.count < maximumDepth else { throw nestingTooDeep() }
        stack.append(container)
    }

    /// Checks that the valid body's value is an object, from its first byte, which says what the
    /// value is.
    @inline(never)
    private func checkTopLevelIsObject() throws(JSONDecodingError) {
        let bytes = tokenizer.bytes
        var offset = JSONTokenizer.byteOrderMarkLength(of: bytes)
        while bytes[offset] == 0x20 || bytes[offset] == 0x09 || bytes[offset] == 0x0A || bytes[offset] == 0x0D {
            offset += 1
        }
        let found: String
        switch bytes[offset] {
        case UInt8(ascii: "{"): return
        case UInt8(ascii: "["): found = "an array"
        case UInt8(ascii: "\""): found = "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): found = "a boolean"
        case UInt8(ascii: "n"): found = "null"
        default: found = "a number"
        }
        throw error(.invalidSyntax, at: offset, "expected an object at the top level, found " + found)
    }

    /// The error for a container that opens deeper than the maximum depth.
    @inline(never)
    private func nestingTooDeep() -> JSONDecodingError {
        error(
            .nestingTooDeep, at: tokenizer.tokenStart,
            "objects and arrays are nested more than \(maximumDepth) levels deep")
    }

    /// Moves an array on to its next element when one of its elements is complete.
    private mutating func valueEnded() {
        guard let top = stack.indices.last else { return }
        if case .array(let nextIndex) = stack[top] {
            stack[top] = .array(nextIndex: nextIndex + 1)
        }
    }

    /// Makes `key` the current key of its object, unless the object already has it.
    private mutating func record(_ key: JSONTokenizer.StringContents) throws(JSONDecodingError) {
        guard case .object(let ordinal, _) = stack[stack.count - 1] else { return }
        stack[stack.count - 1] = .object(ordinal: ordinal, currentKey: key)
        let contents = tokenizer.rawBytes(of: key)
        let inserted =
            key.hasEscapes
            ? keys.insert(object: ordinal) { JSONTokenizer.appendDecoded(contents, to: &$0) }
            : keys.insert(object: ordinal, bodyRange: key.start..<key.end)
        guard inserted else {
            throw error(
                .duplicateKey, at: tokenizer.tokenStart, "the key \"\(string(key))\" appears twice in the same object")
        }
    }

    /// Checks that a number is finite as a `Double`.
    private func check(_ number: JSONTokenizer.NumberLiteral) throws(JSONDecodingError) {
        // Without an exponent, a number of at most 308 characters is below 10^308 and so finite:
        // only longer numbers, and numbers with an exponent, need parsing to tell.
        guard number.hasExponent || number.range.count > 308 else { return }
        try checkParsing(number)
    }

    /// Checks that a number is finite as a `Double` by parsing it.
    @inline(never)
    private func checkParsing(_ number: JSONTokenizer.NumberLiteral) throws(JSONDecodingError) {
        let literal = String(decoding: UnsafeBufferPointer(rebasing: tokenizer.bytes[number.range]), as: UTF8.self)
        guard let value = Double(literal), value.isFinite else {
            throw error(
                .numberOutOfRange, at: number.range.lowerBound,
                "the number \(literal.prefix(40)) is too large to represent")
        }
    }

    /// Decodes a string's contents.
    private func string(_ contents: JSONTokenizer.StringContents) -> String {
        guard contents.hasEscapes else { return String(decoding: tokenizer.rawBytes(of: contents), as: UTF8.self) }
        var utf8: [UInt8] = []
        tokenizer.appendDecoded(contents, to: &utf8)
        return String(decoding: utf8, as: UTF8.self)
    }

    // MARK: Encoding and errors

    private func checkEncoding() throws(JSONDecodingError) {
        let bytes = tokenizer.bytes
        if bytes.count >= 2,
            (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE)
                || bytes[0] == 0 || bytes[1] == 0
        {
            throw encodingError("the body looks like UTF-16 or UTF-32; a configuration must be UTF-8")
        }
    }

    /// The error for what the tokenizer found, with the path of where the input went wrong: the
    /// innermost container still open, and in it the member or element whose value was being read
    /// (after its `:` or the array's `,`, or inside the value).
    ///
    /// Between the members or elements of a container, where a `,`, the container's end or a `:`
    /// is missing, the path is the container's: the member before is complete, and a key without
    /// its `:` has no value yet. So a document whose `data` is complete and whose outer object is
    /// cut short is reported at the outer object, not inside `data`.
    private func error(_ failure: JSONTokenizer.Failure) -> JSONDecodingError {
        switch failure.kind {
        case .expectedValue where failure.offset == tokenizer.bytes.count && stack.isEmpty:
            return JSONDecodingError(code: .emptyBody, reason: "the body is empty or only whitespace")
        case .expectedColon, .expectedCommaOrEnd:
            return tokenizer.error(for: failure, path: path(namingCurrentMember: false))
        default:
            // After a complete member and its comma, the object's next key is not read yet: the
            // object's key is the last member's. (An array's index has moved on to the next element.)
            return tokenizer.error(for: failure, path: path(namingCurrentMember: !tokenizer.isBetweenObjectMembers))
        }
    }

    private func encodingError(_ reason: String) -> JSONDecodingError {
        error(.invalidEncoding, at: 0, reason)
    }

    /// An error at the byte at `offset`, with the path of the value being scanned.
    @inline(never)
    private func error(_ code: JSONDecodingError.Code, at offset: Int, _ reason: String) -> JSONDecodingError {
        JSONDecodingError(code: code, path: path, location: tokenizer.location(of: offset), reason: reason)
    }

    /// The JSON path of the value being scanned, for example `experiences[2].variations`, written by
    /// ``JSONPath``.
    private var path: String { path(namingCurrentMember: true) }

    /// The JSON path of the innermost container, followed, when `namingCurrentMember`, by its
    /// member or element being scanned.
    @inline(never)
    private func path(namingCurrentMember: Bool) -> String {
        var text = ""
        for (depth, container) in stack.enumerated() {
            guard namingCurrentMember || depth < stack.count - 1 else { break }
            switch container {
            case .object(_, let key?): JSONPath.append(key: string(key), to: &text)
            case .object(_, nil): break
            case .array(let index): JSONPath.append(index: index, to: &text)
            }
        }
        return text
    }
}
