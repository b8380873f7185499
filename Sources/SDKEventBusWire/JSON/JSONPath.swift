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
    static func append(key: String, to path: inout String) {
        guard needsQuoting(key) else {
            if !path.isEmpty { path += "." }
            path += key
            return
        }
        var quoted: [UInt8] = Array("[\"".utf8)
        var utf8 = key
        utf8.withUTF8 { CanonicalJSON.appendEscaped($0, to: &quoted) }
        quoted += "\"]".utf8
        path += String(decoding: quoted, as: UTF8.self)
    }

    /// Appends an array element's index to `path`.
    static func append(index: Int, to path: inout String) {
        path += "["
        path += String(index)
        path += "]"
    }

    /// Whether `key`, written bare, could read as the path's own syntax, or would break the line.
    private static func needsQuoting(_ key: String) -> Bool {
        key.isEmpty
            || key.utf8.contains {
                $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]")
                    || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20
            }
    }
}
