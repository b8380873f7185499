import struct Foundation.Data

/// Checks that a body is well-formed UTF-8 JSON in one pass, and says exactly where it is not.
///
/// `JSONDecoder` reports syntax errors without a location, accepts duplicate keys and byte order
/// marks, and recurses on nesting. This validator runs first: it is iterative (a 10,000-deep body
/// cannot overflow the stack), strict (RFC 8259: no leading zeros, no lone surrogates, no control
/// characters in strings), rejects duplicate keys, and reports the byte, line, column and JSON
/// path of the first problem. What remains for the decoder is types and required fields.
///
/// It is linear in the size of the body. The keys seen so far live in one ``JSONKeyTable`` for the
/// whole body, each with the object it belongs to, so that a key costs one insertion whatever the
/// size of its object, and the container stack holds only plain values. Only a key with escapes
/// is decoded. The JSON path and the line and column are worked out only for an error.
struct JSONSyntaxValidator {
    /// A container being scanned, with where the scan is in it, which is what an error's path needs.
    private enum Container {
        /// An object, numbered in the order objects open, with the key whose value is being
        /// scanned (`nil` before the first key).
        case object(ordinal: Int, currentKey: StringSpan?)
        /// An array, with the index of the element being scanned.
        case array(nextIndex: Int)
    }

    /// Where a string's contents lie in the body, between its quotes.
    private struct StringSpan {
        /// The offset of the first byte after the opening quote.
        var start: Int
        /// The offset of the closing quote.
        var end: Int
        /// Whether the contents hold a backslash escape, and so differ from their decoded bytes.
        var hasEscapes: Bool
    }

    /// What the scanner expects next.
    private enum Expectation {
        case value
        case firstKeyOrEnd
        case key
        case colon
        case commaOrEnd
        case endOfBody
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let maximumDepth: Int
    private var position = 0
    private var stack: [Container] = []
    /// Every key seen so far, in every object.
    private var keys: JSONKeyTable
    /// How many objects have opened so far: the next object's ordinal.
    private var openedObjects = 0

    private init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.keys = JSONKeyTable(body: bytes)
    }

    /// Validates `bytes`.
    ///
    /// - Throws: A ``JSONDecodingError`` with code `emptyBody`, `invalidEncoding`,
    ///   `invalidSyntax`, `nestingTooDeep`, `duplicateKey` or `numberOutOfRange`.
    static func validate(_ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) throws(JSONDecodingError) {
        var validator = JSONSyntaxValidator(bytes: bytes, maximumDepth: maximumDepth)
        try validator.run()
    }

    /// Validates `data`.
    ///
    /// - Throws: See ``validate(_:maximumDepth:)``.
    static func validate(_ data: Data, maximumDepth: Int) throws(JSONDecodingError) {
        let result = data.withUnsafeBytes { raw -> Result<Void, JSONDecodingError> in
            Result { () throws(JSONDecodingError) in
                try validate(raw.bindMemory(to: UInt8.self), maximumDepth: maximumDepth)
            }
        }
        try result.get()
    }

    private mutating func run() throws(JSONDecodingError) {
        try checkEncoding()
        skipWhitespace()
        guard position < bytes.count else {
            throw JSONDecodingError(code: .emptyBody, reason: "the body is empty or only whitespace")
        }
        var expectation = Expectation.value
        while true {
            skipWhitespace()
            switch expectation {
            case .value:
                expectation = try scanValue()
            case .firstKeyOrEnd:
                if peek() == UInt8(ascii: "}") {
                    position += 1
                    expectation = closeContainer()
                } else {
                    expectation = try scanKey()
                }
            case .key:
                expectation = try scanKey()
            case .colon:
                guard peek() == UInt8(ascii: ":") else { throw syntaxError("expected ':' after an object key") }
                position += 1
                expectation = .value
            case .commaOrEnd:
                expectation = try scanCommaOrEnd()
            case .endOfBody:
                guard position == bytes.count else {
                    throw syntaxError("unexpected data after the end of the JSON value")
                }
                return
            }
        }
    }

    // MARK: Values

    private mutating func scanValue() throws(JSONDecodingError) -> Expectation {
        guard let byte = peek() else { throw syntaxError("unexpected end of body; expected a value") }
        switch byte {
        case UInt8(ascii: "{"):
            try open(.object(ordinal: openedObjects, currentKey: nil))
            openedObjects += 1
            return .firstKeyOrEnd
        case UInt8(ascii: "["):
            try open(.array(nextIndex: 0))
            skipWhitespace()
            if peek() == UInt8(ascii: "]") {
                position += 1
                return closeContainer()
            }
            return .value
        case UInt8(ascii: "\""):
            try scanString()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try scanNumber()
        case UInt8(ascii: "t"):
            try scanLiteral("true")
        case UInt8(ascii: "f"):
            try scanLiteral("false")
        case UInt8(ascii: "n"):
            try scanLiteral("null")
        default:
            throw syntaxError("expected a value (object, array, string, number, true, false or null)")
        }
        return valueEnded()
    }

    private mutating func open(_ container: Container) throws(JSONDecodingError) {
        guard stack.count < maximumDepth else {
            throw JSONDecodingError(
                code: .nestingTooDeep,
                path: path,
                location: location(of: position),
                reason: "objects and arrays are nested more than \(maximumDepth) levels deep"
            )
        }
        position += 1
        stack.append(container)
    }

    private mutating func closeContainer() -> Expectation {
        stack.removeLast()
        return valueEnded()
    }

    /// What follows a complete value: a comma or the end of its container, or the end of the body.
    private mutating func valueEnded() -> Expectation {
        guard let top = stack.indices.last else { return .endOfBody }
        if case .array(let nextIndex) = stack[top] {
            stack[top] = .array(nextIndex: nextIndex + 1)
        }
        return .commaOrEnd
    }

    private mutating func scanCommaOrEnd() throws(JSONDecodingError) -> Expectation {
        let isObject: Bool
        if case .object = stack[stack.count - 1] { isObject = true } else { isObject = false }
        switch peek() {
        case UInt8(ascii: ","):
            position += 1
            return isObject ? .key : .value
        case UInt8(ascii: "}") where isObject, UInt8(ascii: "]") where !isObject:
            position += 1
            return closeContainer()
        case nil:
            throw syntaxError("unexpected end of body inside an \(isObject ? "object" : "array")")
        default:
            throw syntaxError(
                isObject ? "expected ',' or '}' after an object member" : "expected ',' or ']' after an array element")
        }
    }

    private mutating func scanKey() throws(JSONDecodingError) -> Expectation {
        guard peek() == UInt8(ascii: "\"") else {
            throw syntaxError(
                peek() == nil ? "unexpected end of body; expected an object key" : "expected a string key")
        }
        let keyStart = position
        let key = try scanString()
        guard case .object(let ordinal, _) = stack[stack.count - 1] else { return .colon }
        stack[stack.count - 1] = .object(ordinal: ordinal, currentKey: key)
        let contents = UnsafeBufferPointer(rebasing: bytes[key.start..<key.end])
        let inserted =
            key.hasEscapes
            ? keys.insert(object: ordinal) { Self.appendDecodedUTF8(contents, to: &$0) }
            : keys.insert(object: ordinal, bodyRange: key.start..<key.end)
        guard inserted else {
            throw JSONDecodingError(
                code: .duplicateKey,
                path: path,
                location: location(of: keyStart),
                reason: "the key \"\(string(key))\" appears twice in the same object"
            )
        }
        return .colon
    }

    // MARK: Strings

    /// Scans a string starting at its opening quote.
    ///
    /// - Returns: Where the string's contents lie; nothing is decoded.
    @discardableResult
    private mutating func scanString() throws(JSONDecodingError) -> StringSpan {
        position += 1
        let contentStart = position
        var hasEscapes = false
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                let contents = StringSpan(start: contentStart, end: position, hasEscapes: hasEscapes)
                position += 1
                return contents
            case UInt8(ascii: "\\"):
                hasEscapes = true
                try scanEscape()
            case 0x00..<0x20:
                throw syntaxError("a control character (0x\(hex(byte))) must be escaped inside a string")
            case 0x80...:
                try scanMultiByteScalar()
            default:
                position += 1
            }
        }
        throw syntaxError("unexpected end of body inside a string", at: contentStart - 1)
    }

    private mutating func scanEscape() throws(JSONDecodingError) {
        let escapeStart = position
        position += 1
        guard let byte = peek() else { throw syntaxError("unexpected end of body inside an escape sequence") }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 1
        case UInt8(ascii: "u"):
            position += 1
            let unit = try scanHexQuad()
            switch unit {
            case 0xD800...0xDBFF:
                guard peek() == UInt8(ascii: "\\"), peek(at: position + 1) == UInt8(ascii: "u") else {
                    throw syntaxError(
                        "a high surrogate \\u\(hex(unit)) must be followed by a low surrogate", at: escapeStart)
                }
                position += 2
                let low = try scanHexQuad()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw syntaxError(
                        "a high surrogate \\u\(hex(unit)) must be followed by a low surrogate", at: escapeStart)
                }
            case 0xDC00...0xDFFF:
                throw syntaxError("a low surrogate \\u\(hex(unit)) without a high surrogate before it", at: escapeStart)
            default:
                break
            }
        default:
            throw syntaxError("invalid escape sequence '\\\(Character(Unicode.Scalar(byte)))'", at: escapeStart)
        }
    }

    private mutating func scanHexQuad() throws(JSONDecodingError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = peek(), let digit = Self.hexValue(byte) else {
                throw syntaxError("expected four hexadecimal digits after \\u")
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    /// Validates one UTF-8 encoded scalar of two to four bytes (RFC 3629: no overlongs, no surrogates).
    private mutating func scanMultiByteScalar() throws(JSONDecodingError) {
        let lead = bytes[position]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            secondRange = 0x80...0x9F
        case 0xF0:
            length = 4
            secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            secondRange = 0x80...0x8F
        default: throw encodingError("byte 0x\(hex(lead)) cannot start a UTF-8 character")
        }
        for index in 1..<length {
            guard let byte = peek(at: position + index),
                index == 1 ? secondRange.contains(byte) : (0x80...0xBF).contains(byte)
            else {
                throw encodingError("the bytes starting at 0x\(hex(lead)) are not a valid UTF-8 character")
            }
        }
        position += length
    }

    /// Decodes a scanned string's contents.
    private func string(_ span: StringSpan) -> String {
        let contents = UnsafeBufferPointer(rebasing: bytes[span.start..<span.end])
        guard span.hasEscapes else { return String(decoding: contents, as: UTF8.self) }
        var utf8: [UInt8] = []
        Self.appendDecodedUTF8(contents, to: &utf8)
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Decodes a string's contents, already validated, between its quotes, appending the UTF-8
    /// bytes to `utf8`.
    private static func appendDecodedUTF8(_ raw: UnsafeBufferPointer<UInt8>, to utf8: inout [UInt8]) {
        var index = raw.startIndex
        func hexQuad(at offset: Int) -> UInt32 {
            raw[offset..<offset + 4].reduce(0) { $0 << 4 | UInt32(hexValue($1) ?? 0) }
        }
        while index < raw.endIndex {
            guard raw[index] == UInt8(ascii: "\\") else {
                utf8.append(raw[index])
                index += 1
                continue
            }
            let escaped = raw[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hexQuad(at: index)
                index += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    scalar = 0x10000 + (scalar - 0xD800) << 10 + (hexQuad(at: index + 2) - 0xDC00)
                    index += 6
                }
                if let scalar = Unicode.Scalar(scalar) {
                    UTF8.encode(scalar) { utf8.append($0) }
                }
            default: utf8.append(escaped)
            }
        }
    }

    // MARK: Numbers and literals

    private mutating func scanNumber() throws(JSONDecodingError) {
        let start = position
        if peek() == UInt8(ascii: "-") { position += 1 }
        guard let first = peek(), isDigit(first) else { throw syntaxError("expected a digit after '-'") }
        if first == UInt8(ascii: "0") {
            position += 1
            if let next = peek(), isDigit(next) {
                throw syntaxError("numbers must not have leading zeros", at: start)
            }
        } else {
            skipDigits()
        }
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard let digit = peek(), isDigit(digit) else { throw syntaxError("expected a digit after '.'") }
            skipDigits()
        }
        var hasExponent = false
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            hasExponent = true
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard let digit = peek(), isDigit(digit) else { throw syntaxError("expected a digit in the exponent") }
            skipDigits()
        }
        // Without an exponent, a number of at most 308 characters is below 10^308 and so finite:
        // only longer numbers, and numbers with an exponent, need parsing to tell.
        guard hasExponent || position - start > 308 else { return }
        let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(literal), value.isFinite else {
            throw JSONDecodingError(
                code: .numberOutOfRange,
                path: path,
                location: location(of: start),
                reason: "the number \(literal.prefix(40)) is too large to represent"
            )
        }
    }

    private mutating func scanLiteral(_ literal: StaticString) throws(JSONDecodingError) {
        let start = position
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for byte in expected {
            guard peek() == byte else { throw syntaxError("expected the literal '\(literal)'", at: start) }
            position += 1
        }
    }

    // MARK: Encoding, whitespace, errors

    private func checkEncoding() throws(JSONDecodingError) {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw encodingError("the body starts with a UTF-8 byte order mark; JSON over a network must not have one")
        }
        if bytes.count >= 2,
            (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE)
                || bytes[0] == 0 || bytes[1] == 0
        {
            throw encodingError("the body looks like UTF-16 or UTF-32; a configuration must be UTF-8")
        }
    }

    private mutating func skipWhitespace() {
        while let byte = peek(),
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
                || byte == UInt8(ascii: "\t")
        {
            position += 1
        }
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { position += 1 }
    }

    private func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }
    private func peek(at index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }
    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private func hex(_ value: some BinaryInteger) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, (value.bitWidth / 4) - digits.count)) + digits
    }

    /// The JSON path of the value being scanned, for example `experiences[2].variations`.
    private var path: String {
        var text = ""
        for container in stack {
            switch container {
            case .object(_, let span?):
                let key = string(span)
                text += text.isEmpty ? key : ".\(key)"
            case .object(_, nil): break
            case .array(let index): text += "[\(index)]"
            }
        }
        return text
    }

    private func location(of offset: Int) -> JSONDecodingError.Location {
        var line = 1
        var lineStart = 0
        for index in 0..<min(offset, bytes.count) where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        return JSONDecodingError.Location(byteOffset: offset, line: line, column: offset - lineStart + 1)
    }

    private func syntaxError(_ reason: String, at offset: Int? = nil) -> JSONDecodingError {
        JSONDecodingError(
            code: .invalidSyntax, path: path, location: location(of: offset ?? position), reason: reason)
    }

    private func encodingError(_ reason: String) -> JSONDecodingError {
        JSONDecodingError(code: .invalidEncoding, path: path, location: location(of: position), reason: reason)
    }
}
