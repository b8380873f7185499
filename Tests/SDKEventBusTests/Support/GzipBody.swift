import Foundation

/// A gzip member (RFC 1952) made by hand, for bodies served with `Content-Encoding: gzip`.
///
/// `data` as it is (stored deflate blocks), then `spaces` spaces compressed to a few bytes per 258
/// (back-references in a block with the fixed Huffman codes), so that a small body decodes to a
/// large one. Foundation on Linux has no compressor; this needs none.
enum GzipBody {
    /// `data` followed by `spaces` spaces, compressed.
    static func make(_ data: Data, thenSpaces spaces: Int = 0) -> Data {
        var bits = BitWriter()
        bits.bytes = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
        // Stored blocks (BTYPE 00) of at most 65,535 bytes, then one fixed-code block (BTYPE 01).
        var rest = data[...]
        repeat {
            let block = rest.prefix(65_535)
            rest = rest.dropFirst(block.count)
            bits.write(0, count: 3)
            bits.alignToByte()
            let length = UInt16(block.count)
            bits.bytes += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            bits.bytes += block
        } while !rest.isEmpty
        bits.write(0b011, count: 3)  // the last block, fixed codes
        if spaces > 0 {
            bits.writeCode(0x30 + 0x20, count: 8)  // the literal " "
            var copied = 1
            while spaces - copied >= 258 {
                bits.writeCode(0xC5, count: 8)  // length 258 (symbol 285)
                bits.writeCode(0, count: 5)  // distance 1
                copied += 258
            }
            for _ in copied..<spaces { bits.writeCode(0x30 + 0x20, count: 8) }
        }
        bits.writeCode(0, count: 7)  // end of block (symbol 256)
        bits.alignToByte()
        var crc = CRC32()
        crc.update(data)
        crc.update(repeating: 0x20, count: spaces)
        for value in [crc.value, UInt32(truncatingIfNeeded: data.count + spaces)] {
            bits.bytes += (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
        return Data(bits.bytes)
    }

    /// Deflate's bit order: values least significant bit first, Huffman codes most significant
    /// bit first.
    private struct BitWriter {
        var bytes: [UInt8] = []
        private var pending: UInt32 = 0
        private var pendingCount = 0

        mutating func write(_ value: UInt32, count: Int) {
            pending |= value << pendingCount
            pendingCount += count
            while pendingCount >= 8 {
                bytes.append(UInt8(pending & 0xFF))
                pending >>= 8
                pendingCount -= 8
            }
        }

        mutating func writeCode(_ code: UInt32, count: Int) {
            var reversed: UInt32 = 0
            for bit in 0..<count where code & (1 << bit) != 0 { reversed |= 1 << (count - 1 - bit) }
            write(reversed, count: count)
        }

        mutating func alignToByte() {
            if pendingCount > 0 { write(0, count: 8 - pendingCount) }
        }
    }

    /// The CRC-32 gzip ends with (the reflected polynomial 0xEDB88320).
    private struct CRC32 {
        private static let table: [UInt32] = (0..<256).map { index in
            (0..<8).reduce(UInt32(index)) { crc, _ in crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        private var crc: UInt32 = 0xFFFF_FFFF

        var value: UInt32 { ~crc }

        mutating func update(_ data: Data) {
            for byte in data { add(byte) }
        }

        mutating func update(repeating byte: UInt8, count: Int) {
            for _ in 0..<count { add(byte) }
        }

        private mutating func add(_ byte: UInt8) {
            crc = Self.table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
    }
}
