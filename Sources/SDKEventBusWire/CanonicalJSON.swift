import SDKEventBusCore

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
/// - A number written as an integer (no fraction, no exponent) from `Int64.min` to `UInt64.max` is
///   written as that integer, `-0` as `0`: every value of every fixed-width integer type, `UInt64`
///   included, comes back exactly. Any other number is read as the nearest `Double`: if it is a
///   whole number in the same range, it is written as that integer (`1.0` as `1`, `1e+16` as
///   `10000000000000000`, `1e19` as `10000000000000000000`, `-0.0` as `0`); otherwise as Swift's
///   `Double.description`, the shortest digits that read back as the same `Double`, which is the
///   same on every platform and valid JSON (`0.1`, `1e-05`, `1e+300`). So a `Double` canonicalizes
///   the same whether an encoder wrote it in shortest form, with 17 significant digits, or as an
///   exact integer. A number with more digits than a `Double` carries, such as a `Decimal`'s
///   `3.14159265358979323846`, becomes that `Double`'s digits (`3.141592653589793`).
/// - `true`, `false` and `null` are written as they are.
///
/// The input must be one JSON value (RFC 8259) in UTF-8, checked by the `JSONTokenizer` that reads
/// it, the same as `JSONSyntaxValidator`'s. The rewrite takes time linear in the input, plus
/// sorting each object's keys, and is iterative, so nesting depth is bounded only by memory.
enum CanonicalJSON {
    /// Rewrites `json` in canonical form.
    ///
    /// - Parameters:
    ///   - json: One JSON value, in UTF-8.
    ///   - maximumDepth: How deep objects and arrays may nest, counted as `JSONSyntaxValidator`
    ///     counts them; unbounded by default.
    /// - Returns: The canonical UTF-8 bytes of the same value.
    /// - Throws: A `JSONDecodingError` with code `invalidSyntax`, `invalidEncoding`,
    ///   `duplicateKey` (the order of two equal keys is not defined) or `numberOutOfRange` (a number
    ///   beyond the range of `Double`), with the location of the offending byte. `JSONEncoder` never
    ///   writes such JSON. Code `nestingTooDeep` for a container deeper than `maximumDepth`.
    static func canonicalize(_ json: Data, maximumDepth: Int = .max) throws(JSONDecodingError) -> Data {
        let result = json.withUnsafeBytes { raw -> Result<[UInt8], JSONDecodingError> in
            Result { () throws(JSONDecodingError) in
                var reader = Reader(
                    tokenizer: JSONTokenizer(raw.bindMemory(to: UInt8.self)), maximumDepth: maximumDepth)
                let root = try reader.read()
                return reader.write(root)
            }
        }
        return Data(try result.get())
    }

    /// Appends the canonical escaped form of a decoded string, without its quotes.
    static func appendEscaped(_ decoded: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
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
    /// Integers from `Int64.min` to `UInt64.max` are written exactly, so that every value of every
    /// fixed-width integer type survives; any other number as the nearest `Double`.
    ///
    /// - Returns: `nil` when the number is beyond the range of `Double`.
    static func canonicalNumber(_ literal: UnsafeBufferPointer<UInt8>) -> String? {
        let isInteger = literal.allSatisfy {
            $0 == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
        }
        if isInteger, let integer = exactInteger(literal) { return integer }
        guard let value = Double(String(decoding: literal, as: UTF8.self)), value.isFinite else { return nil }
        if value.rounded(.towardZero) == value, value >= -0x1p63, value < 0x1p64 {
            // A `Double` that is such an integer is written as one, however an encoder spelled it.
            return integer(isNegative: value < 0, magnitude: UInt64(value.magnitude))
        }
        return value.description
    }

    /// An integer from its sign and magnitude, already within `Int64.min` and `UInt64.max`; `0` for
    /// either zero.
    private static func integer(isNegative: Bool, magnitude: UInt64) -> String {
        isNegative && magnitude != 0 ? "-" + String(magnitude) : String(magnitude)
    }

    /// An optionally negative run of decimal digits written back, `-0` as `0`, when its value lies
    /// from `Int64.min` to `UInt64.max`; `nil` otherwise.
    private static func exactInteger(_ literal: UnsafeBufferPointer<UInt8>) -> String? {
        let isNegative = literal.first == UInt8(ascii: "-")
        var magnitude: UInt64 = 0
        for byte in literal.dropFirst(isNegative ? 1 : 0) {
            let (shifted, shiftOverflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (next, digitOverflow) = shifted.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !shiftOverflow, !digitOverflow else { return nil }
            magnitude = next
        }
        // The magnitude of `Int64.min` is one more than `Int64.max`.
        guard !isNegative || magnitude <= UInt64(Int64.max) + 1 else { return nil }
        return integer(isNegative: isNegative, magnitude: magnitude)
    }
}

/// One pass over the input's tokens that builds a tree of its values, then one pass over the tree
/// that writes it, both with explicit stacks instead of recursion.
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

    private var tokenizer: JSONTokenizer
    /// How deep containers may nest.
    private let maximumDepth: Int
    private var nodes: [Node] = []
    private var scalars: [UInt8] = []
    private var keys: [UInt8] = []
    /// A decoded string, reused from one string to the next.
    private var decoded: [UInt8] = []

    init(tokenizer: JSONTokenizer, maximumDepth: Int) {
        self.tokenizer = tokenizer
        self.maximumDepth = maximumDepth
    }

    // MARK: Reading

    /// Reads the whole input.
    ///
    /// - Returns: The root node.
    mutating func read() throws(JSONDecodingError) -> Int {
        var stack: [Frame] = []
        var root = 0
        while true {
            let token: JSONTokenizer.Token?
            do {
                token = try tokenizer.next()
            } catch {
                throw tokenizer.error(for: error)
            }
            let node: Int
            switch token {
            case nil:
                return root
            case .beginObject:
                try open(isObject: true, in: &stack)
                continue
            case .beginArray:
                try open(isObject: false, in: &stack)
                continue
            case .endObject, .endArray:
                node = try close(stack.removeLast())
            case .key(let contents):
                let start = keys.count
                tokenizer.appendDecoded(contents, to: &keys)
                stack[stack.count - 1].pendingKey = (start..<keys.count, tokenizer.tokenStart)
                continue
            case .string(let contents):
                let start = scalars.count
                scalars.append(UInt8(ascii: "\""))
                if contents.hasEscapes {
                    decoded.removeAll(keepingCapacity: true)
                    tokenizer.appendDecoded(contents, to: &decoded)
                    decoded.withUnsafeBufferPointer { CanonicalJSON.appendEscaped($0, to: &scalars) }
                } else {
                    CanonicalJSON.appendEscaped(tokenizer.rawBytes(of: contents), to: &scalars)
                }
                scalars.append(UInt8(ascii: "\""))
                node = add(.scalar(start..<scalars.count))
            case .number(let number):
                guard
                    let canonical = CanonicalJSON.canonicalNumber(
                        UnsafeBufferPointer(rebasing: tokenizer.bytes[number.range]))
                else {
                    throw JSONDecodingError(
                        code: .numberOutOfRange, location: tokenizer.location(of: number.range.lowerBound),
                        reason: "the number is beyond the range of Double")
                }
                let start = scalars.count
                scalars += canonical.utf8
                node = add(.scalar(start..<scalars.count))
            case .true:
                node = addLiteral("true")
            case .false:
                node = addLiteral("false")
            case .null:
                node = addLiteral("null")
            }
            Self.place(node, in: &stack, root: &root)
        }
    }

    /// Opens a container, unless it would nest deeper than the maximum depth.
    @inline(never)
    private func open(isObject: Bool, in stack: inout [Frame]) throws(JSONDecodingError) {
        guard stack.count < maximumDepth else {
            throw JSONDecodingError(
                code: .nestingTooDeep, location: tokenizer.location(of: tokenizer.tokenStart),
                reason: "objects and arrays are nested more than \(maximumDepth) levels deep")
        }
        stack.append(Frame(isObject: isObject))
    }

    private mutating func add(_ node: Node) -> Int {
        nodes.append(node)
        return nodes.count - 1
    }

    private mutating func addLiteral(_ literal: StaticString) -> Int {
        let start = scalars.count
        scalars += UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        return add(.scalar(start..<scalars.count))
    }

    /// Puts a complete value in its container, or makes it the root.
    private static func place(_ node: Int, in stack: inout [Frame], root: inout Int) {
        guard !stack.isEmpty else {
            root = node
            return
        }
        let top = stack.count - 1
        if let pending = stack[top].pendingKey {
            stack[top].members.append(Member(key: pending.key, offset: pending.offset, value: node))
            stack[top].pendingKey = nil
        } else {
            stack[top].elements.append(node)
        }
    }

    /// Makes a node of a container whose end was read, sorting an object's members.
    private mutating func close(_ frame: Frame) throws(JSONDecodingError) -> Int {
        guard frame.isObject else { return add(.array(frame.elements)) }
        let members = sortedByKey(frame.members)
        for (previous, member) in zip(members, members.dropFirst()) where keys[previous.key] == keys[member.key] {
            let key = String(decoding: keys[member.key], as: UTF8.self)
            throw JSONDecodingError(
                code: .duplicateKey,
                location: tokenizer.location(of: max(previous.offset, member.offset)),
                reason: "the key \"\(key)\" appears twice in the same object"
            )
        }
        return add(.object(members))
    }

    /// `members` sorted by their keys' bytes: a bottom-up merge sort, written out because the
    /// standard library's sort, specialized for members, is several times its size.
    private func sortedByKey(_ members: [Member]) -> [Member] {
        var sorted = members
        var merged = members
        var width = 1
        while width < members.count {
            var start = 0
            while start < members.count {
                let middle = min(start + width, members.count)
                let end = min(middle + width, members.count)
                var left = start
                var right = middle
                for index in start..<end {
                    if left < middle,
                        right == end || !keys[sorted[right].key].lexicographicallyPrecedes(keys[sorted[left].key])
                    {
                        merged[index] = sorted[left]
                        left += 1
                    } else {
                        merged[index] = sorted[right]
                        right += 1
                    }
                }
                start = end
            }
            swap(&sorted, &merged)
            width *= 2
        }
        return sorted
    }

    // MARK: Writing

    /// Writes the tree under `root` in canonical form.
    func write(_ root: Int) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(tokenizer.bytes.count)
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
                let key = members[written].key
                keys.withUnsafeBufferPointer { CanonicalJSON.appendEscaped(.init(rebasing: $0[key]), to: &output) }
                output += [UInt8(ascii: "\""), UInt8(ascii: ":")]
                child = members[written].value
            }
            stack[stack.count - 1].written += 1
            open(child)
        }
        return output
    }
}
