/// Reads one JSON value (RFC 8259) in UTF-8 as a sequence of tokens, checking its grammar on the
/// way: the one scanner behind ``JSONSyntaxValidator`` and ``CanonicalJSON``.
///
/// Each call to ``next()`` returns the next token, with ``tokenStart`` where it starts in the body,
/// or `nil` once the value is complete and only whitespace follows. The tokenizer is strict: no
/// leading zeros, no lone surrogates, no control characters in strings, only well-formed UTF-8
/// (RFC 3629: no overlong forms, no encoded surrogates). It is iterative, with one bit per open
/// container, so nesting depth is bounded only by memory; a reader that wants a limit counts the
/// ``Token/beginObject`` and ``Token/beginArray`` tokens.
///
/// Nothing is decoded while scanning: a string token says where its contents lie and whether they
/// hold an escape, and ``appendDecoded(_:to:)`` decodes them when a reader needs the text. A number
/// token is its literal's bytes, checked against the grammar only; a reader that needs its value
/// parses it. A problem is thrown as a ``Failure``, which says what is wrong and at which byte;
/// ``error(for:path:)`` words it, with the path a reader adds, the same for every reader.
struct JSONTokenizer {
    /// One token of the body.
    enum Token {
        /// `{`: the members that follow, up to ``endObject``, belong to a new object.
        case beginObject
        case endObject
        /// `[`: the elements that follow, up to ``endArray``, belong to a new array.
        case beginArray
        case endArray
        /// An object member's key; its `:` is checked by the next call.
        case key(StringContents)
        /// A string value.
        case string(StringContents)
        case number(NumberLiteral)
        case `true`
        case `false`
        case null
    }

    /// Where a string's contents lie in the body, between its quotes.
    struct StringContents {
        /// The offset of the first byte after the opening quote.
        var start: Int
        /// The offset of the closing quote.
        var end: Int
        /// Whether the contents hold a backslash escape, and so differ from their decoded bytes.
        var hasEscapes: Bool
    }

    /// Where a number's literal lies in the body, already checked against the grammar.
    struct NumberLiteral {
        /// The offsets of the literal's bytes.
        var range: Range<Int>
        /// Whether the literal has an exponent part (`e` or `E`).
        var hasExponent: Bool
    }

    /// What makes a body malformed, and the offset of the byte that shows it.
    struct Failure: Error {
        enum Kind {
            /// No value starts here (at the end of the body when the offset is the body's count).
            case expectedValue
            /// No key starts here, after `{` or a comma in an object (or the body ended).
            case expectedKey
            case expectedColon
            /// Neither a comma nor the end of the container follows a member or an element (or the
            /// body ended).
            case expectedCommaOrEnd(inObject: Bool)
            /// The value is complete, and more than whitespace follows it.
            case trailingData
            /// A `t`, `f` or `n` that does not start `true`, `false` or `null`; at its first byte.
            case expectedLiteral(StaticString)
            /// At the opening quote of a string that does not end.
            case unterminatedString
            /// At the control character, which must be escaped.
            case controlCharacter(UInt8)
            /// At the end of a body that ends inside an escape.
            case unterminatedEscape
            /// At the backslash of an escape whose letter is not one of JSON's.
            case invalidEscape(UInt8)
            /// At the first byte of `\u`'s four that is not a hexadecimal digit.
            case expectedHexDigits
            /// At the backslash of a high surrogate that no low surrogate follows.
            case unpairedHighSurrogate(UInt16)
            /// At the backslash of a low surrogate that no high surrogate precedes.
            case unpairedLowSurrogate(UInt16)
            /// At a byte that cannot start a UTF-8 sequence: a matter of encoding, not syntax.
            case invalidUTF8Lead(UInt8)
            /// At the lead byte of a UTF-8 sequence that is cut short or malformed.
            case invalidUTF8Sequence(lead: UInt8)
            /// After a `-`, where a digit must follow.
            case expectedDigitAfterMinus
            /// At the start of a number that has a digit after its leading `0`.
            case leadingZero
            /// After a `.`, where a digit must follow.
            case expectedFractionDigit
            /// After `e` or `E` and its optional sign, where a digit must follow.
            case expectedExponentDigit

            /// Whether the problem is the body's encoding rather than its syntax.
            var isEncoding: Bool {
                switch self {
                case .invalidUTF8Lead, .invalidUTF8Sequence: true
                default: false
                }
            }
        }

        var kind: Kind
        /// The offset of the byte the problem is at.
        var offset: Int
    }

    /// What the next token may be.
    private enum Expectation {
        case value
        /// After `[`: an element or `]`.
        case firstValueOrEnd
        /// After `{`: a key or `}`.
        case firstKeyOrEnd
        /// After a comma in an object.
        case key
        /// After a key.
        case colon
        /// After a member or an element.
        case commaOrEnd
        /// After the root value.
        case endOfBody
    }

    let bytes: UnsafeBufferPointer<UInt8>
    /// Where the token ``next()`` returned last starts.
    private(set) var tokenStart = 0
    private var position = 0
    private var expectation = Expectation.value
    /// How many containers are open around the position.
    private var depth = 0
    /// One bit per open container, set for an object: the innermost 64, the innermost in bit 0.
    private var innerContainers: UInt64 = 0
    /// The bits of the containers around the innermost 64, 64 to a word, the outermost first: a
    /// body nested at most 64 deep allocates nothing.
    private var outerContainers: [UInt64] = []

    /// Whether the last token completed a member of the innermost container, an object.
    ///
    /// What follows is a comma and the next member, or the object's end. It stays so while the key
    /// after a comma is read.
    var isBetweenObjectMembers: Bool {
        guard case .commaOrEnd = expectation else { return false }
        return innerContainers & 1 == 1
    }

    /// Creates a tokenizer at `start` in `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: The body; it must outlive the tokenizer.
    ///   - start: Where the JSON text starts: past a byte order mark the reader skips
    ///     (``byteOrderMarkLength(of:)``). Offsets stay those of `bytes`.
    init(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0) {
        // No stored property for `start`: a tokenizer of more than 64 bytes is copied with a call to
        // `memcpy`, which added 0.9 % to the instructions of validating a 10,000-key body.
        self.bytes = bytes
        position = start
        tokenStart = start
    }

    /// Reads the next token.
    ///
    /// - Returns: The token, or `nil` when the value is complete and only whitespace follows it.
    /// - Throws: A ``Failure`` at the first byte that breaks the grammar or the encoding.
    mutating func next() throws(Failure) -> Token? {
        skipWhitespace()
        // Every way to a value ends in the one `value()` below, so that it is inlined only once.
        switch expectation {
        case .value:
            break
        case .firstValueOrEnd:
            if peek() == UInt8(ascii: "]") { return close() }
        case .firstKeyOrEnd:
            return peek() == UInt8(ascii: "}") ? close() : try key()
        case .key:
            return try key()
        case .colon:
            guard peek() == UInt8(ascii: ":") else { throw failure(.expectedColon) }
            position += 1
            skipWhitespace()
        case .commaOrEnd:
            let isObject = innerContainers & 1 == 1
            switch peek() {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
                if isObject { return try key() }
            case UInt8(ascii: "}") where isObject, UInt8(ascii: "]") where !isObject:
                return close()
            default:
                throw failure(.expectedCommaOrEnd(inObject: isObject))
            }
        case .endOfBody:
            guard position == bytes.count else { throw failure(.trailingData) }
            return nil
        }
        return try value()
    }

    // MARK: Structure

    @inline(__always)
    private mutating func value() throws(Failure) -> Token {
        guard let byte = peek() else { throw failure(.expectedValue) }
        tokenStart = position
        let token: Token
        switch byte {
        case UInt8(ascii: "{"):
            position += 1
            open(isObject: true)
            expectation = .firstKeyOrEnd
            return .beginObject
        case UInt8(ascii: "["):
            position += 1
            open(isObject: false)
            expectation = .firstValueOrEnd
            return .beginArray
        case UInt8(ascii: "\""):
            token = .string(try string())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            token = .number(try number())
        case UInt8(ascii: "t"):
            try literal("true")
            token = .true
        case UInt8(ascii: "f"):
            try literal("false")
            token = .false
        case UInt8(ascii: "n"):
            try literal("null")
            token = .null
        default:
            throw failure(.expectedValue)
        }
        valueEnded()
        return token
    }

    private mutating func key() throws(Failure) -> Token {
        guard peek() == UInt8(ascii: "\"") else { throw failure(.expectedKey) }
        tokenStart = position
        let contents = try string()
        expectation = .colon
        return .key(contents)
    }

    private mutating func open(isObject: Bool) {
        if depth > 0, depth & 63 == 0 {
            outerContainers.append(innerContainers)
            innerContainers = 0
        }
        innerContainers = innerContainers << 1 | (isObject ? 1 : 0)
        depth += 1
    }

    /// Consumes the `}` or `]` at the position, which ends the innermost container.
    private mutating func close() -> Token {
        tokenStart = position
        position += 1
        let isObject = innerContainers & 1 == 1
        innerContainers >>= 1
        depth -= 1
        if depth > 0, depth & 63 == 0 { innerContainers = outerContainers.removeLast() }
        valueEnded()
        return isObject ? .endObject : .endArray
    }

    /// Sets what follows a complete value: a comma or the end of its container, or the end of the body.
    private mutating func valueEnded() {
        expectation = depth == 0 ? .endOfBody : .commaOrEnd
    }

    // MARK: Strings

    /// Scans a string from its opening quote, decoding nothing.
    private mutating func string() throws(Failure) -> StringContents {
        let quote = position
        position += 1
        var hasEscapes = false
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return StringContents(start: quote + 1, end: position - 1, hasEscapes: hasEscapes)
            case UInt8(ascii: "\\"):
                hasEscapes = true
                try escape()
            case 0x00..<0x20:
                throw failure(.controlCharacter(byte))
            case 0x80...:
                try multiByteScalar()
            default:
                position += 1
            }
        }
        throw Failure(kind: .unterminatedString, offset: quote)
    }

    private mutating func escape() throws(Failure) {
        let backslash = position
        position += 1
        guard let byte = peek() else { throw failure(.unterminatedEscape) }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 1
        case UInt8(ascii: "u"):
            position += 1
            let unit = try hexQuad()
            switch unit {
            case 0xD800...0xDBFF:
                guard peek() == UInt8(ascii: "\\"), peek(at: position + 1) == UInt8(ascii: "u") else {
                    throw Failure(kind: .unpairedHighSurrogate(unit), offset: backslash)
                }
                position += 2
                guard (0xDC00...0xDFFF).contains(try hexQuad()) else {
                    throw Failure(kind: .unpairedHighSurrogate(unit), offset: backslash)
                }
            case 0xDC00...0xDFFF:
                throw Failure(kind: .unpairedLowSurrogate(unit), offset: backslash)
            default:
                break
            }
        default:
            throw Failure(kind: .invalidEscape(byte), offset: backslash)
        }
    }

    private mutating func hexQuad() throws(Failure) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = peek(), let digit = Self.hexValue(byte) else { throw failure(.expectedHexDigits) }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    /// Checks one UTF-8 encoded scalar of two to four bytes (RFC 3629: no overlongs, no surrogates).
    private mutating func multiByteScalar() throws(Failure) {
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
        default: throw failure(.invalidUTF8Lead(lead))
        }
        for index in 1..<length {
            guard let byte = peek(at: position + index),
                index == 1 ? secondRange.contains(byte) : (0x80...0xBF).contains(byte)
            else { throw failure(.invalidUTF8Sequence(lead: lead)) }
        }
        position += length
    }

    // MARK: Decoding strings

    /// The bytes of a string's contents as they lie in the body, escapes undecoded.
    func rawBytes(of contents: StringContents) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[contents.start..<contents.end])
    }

    /// Appends the decoded UTF-8 bytes of a string's contents to `utf8`.
    func appendDecoded(_ contents: StringContents, to utf8: inout [UInt8]) {
        let raw = rawBytes(of: contents)
        if contents.hasEscapes {
            Self.appendDecoded(raw, to: &utf8)
        } else {
            utf8.append(contentsOf: raw)
        }
    }

    /// Decodes a string's contents, already checked, from between its quotes, appending the UTF-8
    /// bytes to `utf8`.
    @inline(never)
    static func appendDecoded(_ raw: UnsafeBufferPointer<UInt8>, to utf8: inout [UInt8]) {
        var index = raw.startIndex
        func hexQuad() -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                value = value << 4 | UInt32(hexValue(raw[index]) ?? 0)
                index += 1
            }
            return value
        }
        while index < raw.endIndex {
            var byte = raw[index]
            index += 1
            if byte == UInt8(ascii: "\\") {
                let escaped = raw[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "b"): byte = 0x08
                case UInt8(ascii: "f"): byte = 0x0C
                case UInt8(ascii: "n"): byte = 0x0A
                case UInt8(ascii: "r"): byte = 0x0D
                case UInt8(ascii: "t"): byte = 0x09
                case UInt8(ascii: "u"):
                    var scalar = hexQuad()
                    if (0xD800...0xDBFF).contains(scalar) {
                        index += 2  // the low surrogate's `\u`, checked by the tokenizer
                        scalar = 0x10000 + (scalar - 0xD800) << 10 + (hexQuad() - 0xDC00)
                    }
                    appendUTF8(scalar, to: &utf8)
                    continue
                default: byte = escaped
                }
            }
            // Every byte but a `\u` escape's is appended here, so that the append is inlined once.
            utf8.append(byte)
        }
    }

    /// Appends the UTF-8 encoding of `scalar`, a valid Unicode scalar value.
    private static func appendUTF8(_ scalar: UInt32, to utf8: inout [UInt8]) {
        guard scalar >= 0x80 else { return utf8.append(UInt8(scalar)) }
        // A lead byte that says how many continuation bytes follow, each with six bits.
        var continuations: UInt32 = scalar < 0x800 ? 1 : scalar < 0x10000 ? 2 : 3
        utf8.append(UInt8(truncatingIfNeeded: 0xFF00 >> (continuations + 1) | scalar >> (6 * continuations)))
        while continuations > 0 {
            continuations -= 1
            utf8.append(UInt8(truncatingIfNeeded: 0x80 | (scalar >> (6 * continuations)) & 0x3F))
        }
    }

    // MARK: Numbers and literals

    private mutating func number() throws(Failure) -> NumberLiteral {
        let start = position
        if peek() == UInt8(ascii: "-") { position += 1 }
        guard let first = peek(), Self.isDigit(first) else { throw failure(.expectedDigitAfterMinus) }
        if first == UInt8(ascii: "0") {
            position += 1
            if let next = peek(), Self.isDigit(next) { throw Failure(kind: .leadingZero, offset: start) }
        } else {
            skipDigits()
        }
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard let digit = peek(), Self.isDigit(digit) else { throw failure(.expectedFractionDigit) }
            skipDigits()
        }
        var hasExponent = false
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            hasExponent = true
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard let digit = peek(), Self.isDigit(digit) else { throw failure(.expectedExponentDigit) }
            skipDigits()
        }
        return NumberLiteral(range: start..<position, hasExponent: hasExponent)
    }

    private mutating func literal(_ literal: StaticString) throws(Failure) {
        let start = position
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for byte in expected {
            guard peek() == byte else { throw Failure(kind: .expectedLiteral(literal), offset: start) }
            position += 1
        }
    }

    // MARK: Bytes

    @inline(__always)
    private mutating func skipWhitespace() {
        while let byte = peek(),
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
                || byte == UInt8(ascii: "\t")
        {
            position += 1
        }
    }

    private mutating func skipDigits() {
        while let byte = peek(), Self.isDigit(byte) { position += 1 }
    }

    private func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }
    private func peek(at index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }
    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// A failure at the position.
    private func failure(_ kind: Failure.Kind) -> Failure {
        Failure(kind: kind, offset: position)
    }

    // MARK: Errors

    /// The error for `failure`: its code, where it is in the body, and what is wrong, in words.
    ///
    /// - Parameters:
    ///   - failure: What ``next()`` threw.
    ///   - path: The JSON path of the value being read, if the reader keeps one.
    /// - Returns: The error, with code `invalidSyntax` or `invalidEncoding`.
    func error(for failure: Failure, path: String = "") -> JSONDecodingError {
        let atEnd = failure.offset == bytes.count
        // The reason is `text`, or `text`, a detail and `suffix` when it quotes what it found.
        let text: String
        var detail = ""
        var suffix = ""
        switch failure.kind {
        case .expectedValue:
            text =
                atEnd
                ? "unexpected end of body; expected a value"
                : "expected a value (object, array, string, number, true, false or null)"
        case .expectedKey:
            text = atEnd ? "unexpected end of body; expected an object key" : "expected a string key"
        case .expectedColon:
            text = "expected ':' after an object key"
        case .expectedCommaOrEnd(let inObject) where atEnd:
            text = inObject ? "unexpected end of body inside an object" : "unexpected end of body inside an array"
        case .expectedCommaOrEnd(let inObject):
            text =
                inObject ? "expected ',' or '}' after an object member" : "expected ',' or ']' after an array element"
        case .trailingData:
            text = "unexpected data after the end of the JSON value"
        case .expectedLiteral(let literal):
            text = "expected the literal '"
            detail = literal.description
            suffix = "'"
        case .unterminatedString:
            text = "unexpected end of body inside a string"
        case .controlCharacter(let byte):
            text = "a control character (0x"
            detail = Self.hex(UInt16(byte), digits: 2)
            suffix = ") must be escaped inside a string"
        case .unterminatedEscape:
            text = "unexpected end of body inside an escape sequence"
        case .invalidEscape(let byte):
            text = "invalid escape sequence '\\"
            detail = String(Unicode.Scalar(byte))
            suffix = "'"
        case .expectedHexDigits:
            text = "expected four hexadecimal digits after \\u"
        case .unpairedHighSurrogate(let unit):
            text = "a high surrogate \\u"
            detail = Self.hex(unit, digits: 4)
            suffix = " must be followed by a low surrogate"
        case .unpairedLowSurrogate(let unit):
            text = "a low surrogate \\u"
            detail = Self.hex(unit, digits: 4)
            suffix = " without a high surrogate before it"
        case .invalidUTF8Lead(let lead):
            text = "byte 0x"
            detail = Self.hex(UInt16(lead), digits: 2)
            suffix = " cannot start a UTF-8 character"
        case .invalidUTF8Sequence(let lead):
            text = "the bytes starting at 0x"
            detail = Self.hex(UInt16(lead), digits: 2)
            suffix = " are not a valid UTF-8 character"
        case .expectedDigitAfterMinus:
            text = "expected a digit after '-'"
        case .leadingZero:
            text = "numbers must not have leading zeros"
        case .expectedFractionDigit:
            text = "expected a digit after '.'"
        case .expectedExponentDigit:
            text = "expected a digit in the exponent"
        }
        let reason = text + detail + suffix
        return JSONDecodingError(
            code: failure.kind.isEncoding ? .invalidEncoding : .invalidSyntax,
            path: path,
            location: location(of: failure.offset),
            reason: reason
        )
    }

    /// `value` in uppercase hexadecimal, padded with zeros to `digits` digits.
    private static func hex(_ value: UInt16, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    // MARK: Locations

    /// The length of the UTF-8 encoding of U+FEFF at the start of `bytes`, which some servers, CDNs
    /// and editors put before a body: 3, or 0 when there is none.
    static func byteOrderMarkLength(of bytes: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    }

    /// The line and column of the byte at `offset`, for an error: counted only then.
    ///
    /// A line ends at a line feed, a carriage return, or both in that order (CRLF), the line breaks
    /// RFC 8259's whitespace allows, as an editor counts them. The column counts from the start of
    /// the JSON text on the first line: an editor shows no column for a UTF-8 byte order mark before
    /// it. The byte offset is that of the body as served.
    func location(of offset: Int) -> (line: Int, column: Int, byteOffset: Int) {
        let textStart = Self.byteOrderMarkLength(of: bytes)
        let end = min(offset, bytes.count)
        var line = 1
        var lineStart = min(textStart, offset)
        var index = lineStart
        while index < end {
            let byte = bytes[index]
            index += 1
            guard byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") else { continue }
            if byte == UInt8(ascii: "\r"), index < end, bytes[index] == UInt8(ascii: "\n") { index += 1 }
            line += 1
            lineStart = index
        }
        return (line, offset - lineStart + 1, offset)
    }
}
