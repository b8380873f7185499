import struct Foundation.Data

/// Rewrites JSON in one canonical form, so that equal values give equal bytes whichever Foundation
/// wrote them.
///
/// `JSONEncoder` with `.sortedKeys` is not canonical across platforms: the Foundation of iOS 16 and
/// macOS 13 sorts keys with another comparison than swift-foundation (Linux, newer Apple systems),
/// and the two escape strings and write numbers differently. This type reads whatever JSON an
/// encoder wrote and writes it again by these rules:
///
/// - No whitespace anywhere.
/// - Object members are sorted by the UTF-8 bytes of their decoded keys, compared as unsigned bytes;
///   a key that is a prefix of another comes first. So `""` comes before every other key, `"Zeta"`
///   before `"alpha"`, `"item10"` before `"item9"` and `"z"` before `"é"`. Keys are not Unicode
///   normalized: precomposed and decomposed `"é"` are different keys. Array elements keep their
///   order.
/// - Strings (keys and values) are decoded, then escaped in exactly one way: `\"`, `\\`, `\b`, `\f`,
///   `\n`, `\r`, `\t`, the other control characters U+0000 to U+001F as `\u00xx` with lowercase hex
///   digits, and every other character, `/`, DEL, non-ASCII, U+2028 and U+2029 included, as its raw
///   UTF-8 bytes.
/// - A number written as an integer (no fraction, no exponent) that fits `Int64` is written as that
///   integer, `-0` as `0`. Any other number is read as the nearest `Double`: if it is a whole number
///   in the range of `Int64`, it is written as that integer (`1.0` as `1`, `1e+16` as
///   `10000000000000000`, `-0.0` as `0`); otherwise as Swift's `Double.description`, the shortest
///   digits that read back as the same `Double`, which is the same on every platform and valid JSON
///   (`0.1`, `1e-05`, `1e+300`). So a `Double` canonicalizes the same whether an encoder wrote it
///   in shortest form, with 17 significant digits, or as an exact integer.
/// - `true`, `false` and `null` are written as they are.
///
/// The input must be one JSON value (RFC 8259) in UTF-8. The rewrite takes time linear in the
/// input, plus sorting each object's keys, and is iterative, so nesting depth is bounded only by
/// memory.
enum CanonicalJSON {
    /// Rewrites `json` in canonical form.
    ///
    /// - Parameter json: One JSON value, in UTF-8.
    /// - Returns: The canonical UTF-8 bytes of the same value.
    /// - Throws: A ``JSONDecodingError`` with code `invalidSyntax`, `invalidEncoding`,
    ///   `duplicateKey` (the order of two equal keys is not defined) or `numberOutOfRange` (a number
    ///   beyond the range of `Double`), with the location of the offending byte. `JSONEncoder` never
    ///   writes such JSON.
    static func canonicalize(_ json: Data) throws(JSONDecodingError) -> Data {
        let result = json.withUnsafeBytes { raw -> Result<[UInt8], JSONDecodingError> in
            Result { () throws(JSONDecodingError) in
                var reader = Reader(bytes: raw.bindMemory(to: UInt8.self))
                let root = try reader.read()
                return reader.write(root)
            }
        }
        return Data(try result.get())
    }

    /// Appends the canonical escaped form of a decoded string, without its quotes.
    static func appendEscaped(_ decoded: some Sequence<UInt8>, to output: inout [UInt8]) {
        for byte in decoded {
            let escape: UInt8
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): escape = byte
            case 0x08: escape = UInt8(ascii: "b")
            case 0x0C: escape = UInt8(ascii: "f")
            case 0x0A: escape = UInt8(ascii: "n")
            case 0x0D: escape = UInt8(ascii: "r")
            case 0x09: escape = UInt8(ascii: "t")
            case 0x00..<0x20: escape = UInt8(ascii: "u")
            default:
                output.append(byte)
                continue
            }
            output.append(UInt8(ascii: "\\"))
            output.append(escape)
            if escape == UInt8(ascii: "u") {
                output.append(UInt8(ascii: "0"))
                output.append(UInt8(ascii: "0"))
                output.append(lowercaseHexDigit(byte >> 4))
                output.append(lowercaseHexDigit(byte & 0x0F))
            }
        }
    }

    private static func lowercaseHexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// The canonical form of a JSON number literal, already checked against the JSON grammar.
    ///
    /// - Returns: `nil` when the number is beyond the range of `Double`.
    static func canonicalNumber(_ literal: some Collection<UInt8>) -> String? {
        let isInteger = literal.allSatisfy {
            $0 == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
        }
        if isInteger, let value = int64(literal) { return String(value) }
        guard let value = Double(String(decoding: literal, as: UTF8.self)), value.isFinite else { return nil }
        if value.rounded(.towardZero) == value, value >= -0x1p63, value < 0x1p63 {
            return String(Int64(value))
        }
        return value.description
    }

    /// The value of an optionally negative run of decimal digits, or `nil` if it does not fit `Int64`.
    private static func int64(_ literal: some Collection<UInt8>) -> Int64? {
        let isNegative = literal.first == UInt8(ascii: "-")
        var value: Int64 = 0
        for byte in literal.dropFirst(isNegative ? 1 : 0) {
            let digit = Int64(byte - UInt8(ascii: "0"))
            let (shifted, shiftOverflow) = value.multipliedReportingOverflow(by: 10)
            let (next, digitOverflow) =
                isNegative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !shiftOverflow, !digitOverflow else { return nil }
            value = next
        }
        return value
    }
}

/// One pass over the input that builds a tree of its values, then one pass over the tree that
/// writes it, both with explicit stacks instead of recursion.
private struct Reader {
    /// A value read: a scalar already in canonical form, or a container of other nodes.
    private enum Node {
        /// The canonical bytes, in `scalars`.
        case scalar(Range<Int>)
        case array([Int])
        /// The members, sorted by key.
        case object([Member])
    }

    /// An object member: its decoded key and its value's node.
    private struct Member {
        /// The decoded key's UTF-8 bytes, in `keys`.
        var key: Range<Int>
        /// Where the key starts in the input, for errors.
        var offset: Int
        var value: Int
    }

    /// A container being read.
    private struct Frame {
        var isObject: Bool
        var elements: [Int] = []
        var members: [Member] = []
        /// The key of the member whose value is being read, and where it starts in the input.
        var pendingKey: (key: Range<Int>, offset: Int)?
    }

    /// What the reader expects next.
    private enum Expectation {
        case value
        case key
        case commaOrEnd
        case endOfInput
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var nodes: [Node] = []
    private var scalars: [UInt8] = []
    private var keys: [UInt8] = []
    /// A decoded string, reused from one string to the next.
    private var decoded: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: Reading

    /// Reads the whole input.
    ///
    /// - Returns: The root node.
    mutating func read() throws(JSONDecodingError) -> Int {
        var stack: [Frame] = []
        var root = 0
        var expectation = Expectation.value
        while true {
            skipWhitespace()
            switch expectation {
            case .value:
                guard let byte = peek() else { throw syntaxError("unexpected end of input; expected a value") }
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    let isObject = byte == UInt8(ascii: "{")
                    position += 1
                    skipWhitespace()
                    if peek() == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        position += 1
                        let node = add(isObject ? .object([]) : .array([]))
                        expectation = Self.placed(node, in: &stack, root: &root)
                    } else {
                        stack.append(Frame(isObject: isObject))
                        expectation = isObject ? .key : .value
                    }
                case UInt8(ascii: "\""):
                    try readString()
                    let start = scalars.count
                    scalars.append(UInt8(ascii: "\""))
                    CanonicalJSON.appendEscaped(decoded, to: &scalars)
                    scalars.append(UInt8(ascii: "\""))
                    let node = add(.scalar(start..<scalars.count))
                    expectation = Self.placed(node, in: &stack, root: &root)
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    let node = try readNumber()
                    expectation = Self.placed(node, in: &stack, root: &root)
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    let node = try readLiteral(
                        byte == UInt8(ascii: "t") ? "true" : byte == UInt8(ascii: "f") ? "false" : "null")
                    expectation = Self.placed(node, in: &stack, root: &root)
                default:
                    throw syntaxError("expected a value (object, array, string, number, true, false or null)")
                }
            case .key:
                guard peek() == UInt8(ascii: "\"") else { throw syntaxError("expected a string key") }
                let offset = position
                try readString()
                let start = keys.count
                keys += decoded
                stack[stack.count - 1].pendingKey = (start..<keys.count, offset)
                skipWhitespace()
                guard peek() == UInt8(ascii: ":") else { throw syntaxError("expected ':' after an object key") }
                position += 1
                expectation = .value
            case .commaOrEnd:
                let isObject = stack[stack.count - 1].isObject
                switch peek() {
                case UInt8(ascii: ","):
                    position += 1
                    expectation = isObject ? .key : .value
                case UInt8(ascii: "}") where isObject, UInt8(ascii: "]") where !isObject:
                    position += 1
                    let node = try close(stack.removeLast())
                    expectation = Self.placed(node, in: &stack, root: &root)
                default:
                    throw syntaxError(isObject ? "expected ',' or '}'" : "expected ',' or ']'")
                }
            case .endOfInput:
                guard position == bytes.count else { throw syntaxError("unexpected data after the JSON value") }
                return root
            }
        }
    }

    private mutating func add(_ node: Node) -> Int {
        nodes.append(node)
        return nodes.count - 1
    }

    /// Puts a complete value in its container, or makes it the root.
    ///
    /// - Returns: What follows the value.
    private static func placed(_ node: Int, in stack: inout [Frame], root: inout Int) -> Expectation {
        guard !stack.isEmpty else {
            root = node
            return .endOfInput
        }
        let top = stack.count - 1
        if let pending = stack[top].pendingKey {
            stack[top].members.append(Member(key: pending.key, offset: pending.offset, value: node))
            stack[top].pendingKey = nil
        } else {
            stack[top].elements.append(node)
        }
        return .commaOrEnd
    }

    /// Makes a node of a container whose end was read, sorting an object's members.
    private mutating func close(_ frame: Frame) throws(JSONDecodingError) -> Int {
        guard frame.isObject else { return add(.array(frame.elements)) }
        let members = frame.members.sorted { keys[$0.key].lexicographicallyPrecedes(keys[$1.key]) }
        for (previous, member) in zip(members, members.dropFirst()) where keys[previous.key] == keys[member.key] {
            let key = String(decoding: keys[member.key], as: UTF8.self)
            throw JSONDecodingError(
                code: .duplicateKey,
                location: location(of: max(previous.offset, member.offset)),
                reason: "the key \"\(key)\" appears twice in the same object"
            )
        }
        return add(.object(members))
    }

    /// Reads a string from its opening quote into `decoded`.
    private mutating func readString() throws(JSONDecodingError) {
        let start = position
        position += 1
        decoded.removeAll(keepingCapacity: true)
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return
            case UInt8(ascii: "\\"):
                try readEscape()
            case 0x00..<0x20:
                throw syntaxError("a control character must be escaped inside a string")
            case 0x80...:
                try readMultiByteScalar()
            default:
                decoded.append(byte)
                position += 1
            }
        }
        throw syntaxError("unexpected end of input inside a string", at: start)
    }

    private mutating func readEscape() throws(JSONDecodingError) {
        let start = position
        position += 1
        guard let byte = peek() else { throw syntaxError("unexpected end of input inside an escape sequence") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(byte)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHexQuad()
            switch scalar {
            case 0xD800...0xDBFF:
                guard peek() == UInt8(ascii: "\\"), peek(at: position + 1) == UInt8(ascii: "u") else {
                    throw syntaxError("a high surrogate must be followed by a low surrogate", at: start)
                }
                position += 2
                let low = try readHexQuad()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw syntaxError("a high surrogate must be followed by a low surrogate", at: start)
                }
                scalar = 0x10000 + (scalar - 0xD800) << 10 + (low - 0xDC00)
            case 0xDC00...0xDFFF:
                throw syntaxError("a low surrogate without a high surrogate before it", at: start)
            default:
                break
            }
            decoded += Unicode.UTF8.encode(Unicode.Scalar(scalar)!)!
        default:
            throw syntaxError("invalid escape sequence", at: start)
        }
    }

    private mutating func readHexQuad() throws(JSONDecodingError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let digit: UInt8
            switch peek() {
            case let byte? where (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte): digit = byte - 0x30
            case let byte? where (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte): digit = byte - 0x61 + 10
            case let byte? where (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte): digit = byte - 0x41 + 10
            default: throw syntaxError("expected four hexadecimal digits after \\u")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// Copies one UTF-8 encoded scalar of two to four bytes (RFC 3629: no overlongs, no surrogates).
    private mutating func readMultiByteScalar() throws(JSONDecodingError) {
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch bytes[position] {
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
        default: throw encodingError()
        }
        for index in 1..<length {
            guard let byte = peek(at: position + index),
                index == 1 ? secondRange.contains(byte) : (0x80...0xBF).contains(byte)
            else { throw encodingError() }
        }
        decoded += bytes[position..<position + length]
        position += length
    }

    private mutating func readNumber() throws(JSONDecodingError) -> Int {
        let start = position
        if peek() == UInt8(ascii: "-") { position += 1 }
        if peek() == UInt8(ascii: "0") {
            position += 1
        } else {
            try readDigits("expected a digit")
        }
        if peek() == UInt8(ascii: ".") {
            position += 1
            try readDigits("expected a digit after '.'")
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            try readDigits("expected a digit in the exponent")
        }
        if let byte = peek(), isDigit(byte) {
            throw syntaxError("numbers must not have leading zeros", at: start)
        }
        guard let canonical = CanonicalJSON.canonicalNumber(bytes[start..<position]) else {
            throw JSONDecodingError(
                code: .numberOutOfRange, location: location(of: start),
                reason: "the number is beyond the range of Double")
        }
        let scalarStart = scalars.count
        scalars += canonical.utf8
        return add(.scalar(scalarStart..<scalars.count))
    }

    private mutating func readDigits(_ reason: String) throws(JSONDecodingError) {
        guard let first = peek(), isDigit(first) else { throw syntaxError(reason) }
        while let byte = peek(), isDigit(byte) { position += 1 }
    }

    private mutating func readLiteral(_ literal: StaticString) throws(JSONDecodingError) -> Int {
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        guard bytes.count - position >= expected.count,
            bytes[position..<position + expected.count].elementsEqual(expected)
        else { throw syntaxError("expected the literal '\(literal)'") }
        position += expected.count
        let start = scalars.count
        scalars += expected
        return add(.scalar(start..<scalars.count))
    }

    // MARK: Writing

    /// Writes the tree under `root` in canonical form.
    func write(_ root: Int) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        /// Containers being written, with how many of their children are written.
        var stack: [(node: Int, written: Int)] = []
        func open(_ node: Int) {
            switch nodes[node] {
            case .scalar(let range): output += scalars[range]
            case .array: output.append(UInt8(ascii: "["))
            case .object: output.append(UInt8(ascii: "{"))
            }
            if case .scalar = nodes[node] { return }
            stack.append((node, 0))
        }
        open(root)
        while let (node, written) = stack.last {
            let child: Int
            switch nodes[node] {
            case .scalar:
                preconditionFailure("a scalar is never on the stack")
            case .array(let elements):
                guard written < elements.count else {
                    output.append(UInt8(ascii: "]"))
                    stack.removeLast()
                    continue
                }
                if written > 0 { output.append(UInt8(ascii: ",")) }
                child = elements[written]
            case .object(let members):
                guard written < members.count else {
                    output.append(UInt8(ascii: "}"))
                    stack.removeLast()
                    continue
                }
                if written > 0 { output.append(UInt8(ascii: ",")) }
                output.append(UInt8(ascii: "\""))
                CanonicalJSON.appendEscaped(keys[members[written].key], to: &output)
                output += [UInt8(ascii: "\""), UInt8(ascii: ":")]
                child = members[written].value
            }
            stack[stack.count - 1].written += 1
            open(child)
        }
        return output
    }

    // MARK: Bytes and errors

    private mutating func skipWhitespace() {
        while let byte = peek(),
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
                || byte == UInt8(ascii: "\t")
        {
            position += 1
        }
    }

    private func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }
    private func peek(at index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }
    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

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
        JSONDecodingError(code: .invalidSyntax, location: location(of: offset ?? position), reason: reason)
    }

    private func encodingError() -> JSONDecodingError {
        JSONDecodingError(
            code: .invalidEncoding, location: location(of: position), reason: "the bytes are not valid UTF-8")
    }
}
