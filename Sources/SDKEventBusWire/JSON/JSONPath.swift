/// How an error names where a value is in a body: `experiences[0].variations[1].traffic_allocation`,
/// with a key that would read as this syntax quoted: `data.properties["a.b"]`.
///
/// An index is `[0]`. A key is `.key` (no dot first), unless it is empty or holds a `.`, `[`,
/// `]`, `"`, `\` or a control character: then it is a JSON string in brackets, escaped as the
/// canonical wire form escapes strings (`["a.b"]`, `[""]`, `["line\nbreak"]`). So a key `"a.b"` and
/// a key `b` inside `a` have different paths, and a path stays on one line of a log.
///
/// The syntax check and the decoder's errors both write paths with it.
enum JSONPath {
    /// Appends an object member's key to `path`.
    @inline(never)
    static func append(key: String, to path: inout String) {
        let utf8 = Array(key.utf8)
        guard needsQuoting(utf8) else {
            if !path.isEmpty { path += "." }
            path += key
            return
        }
        var quoted: [UInt8] = [UInt8(ascii: "["), UInt8(ascii: "\"")]
        utf8.withUnsafeBufferPointer { CanonicalJSON.appendEscaped($0, to: &quoted) }
        quoted.append(UInt8(ascii: "\""))
        quoted.append(UInt8(ascii: "]"))
        path += String(decoding: quoted, as: UTF8.self)
    }

    /// Appends an array element's index to `path`.
    static func append(index: Int, to path: inout String) {
        path += "[" + String(index) + "]"
    }

    /// Whether a key, written bare, could read as the path's own syntax, or would break the line.
    private static func needsQuoting(_ utf8: [UInt8]) -> Bool {
        if utf8.isEmpty { return true }
        for byte in utf8 {
            switch byte {
            case 0x00..<0x20, UInt8(ascii: "."), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "\""),
                UInt8(ascii: "\\"):
                return true
            default: continue
            }
        }
        return false
    }
}
