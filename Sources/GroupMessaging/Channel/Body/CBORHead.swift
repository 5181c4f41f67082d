import SealedStorage

/// The first bytes of every CBOR data item (RFC 8949, section 3): a major type in the top three
/// bits and, in the low five, either a small argument (0...23) or how many big-endian bytes of
/// argument follow (24: 1, 25: 2, 26: 4, 27: 8).
///
/// The channel's CBOR writes every head in its shortest form (RFC 8949, 4.2.1, "preferred
/// serialization") and its reader refuses any other, so each value has exactly one encoding.
enum CBORHead {
    /// The major types the channel's subset uses (tags, major type 6, are not in it).
    enum Major: UInt8 {
        case unsigned = 0
        case negative = 1
        case bytes = 2
        case text = 3
        case array = 4
        case map = 5
        case tag = 6
        case simple = 7
    }

    /// Major type 7's items of the subset, as whole initial bytes.
    static let falseByte: UInt8 = 0xF4
    static let trueByte: UInt8 = 0xF5
    static let nullByte: UInt8 = 0xF6
    static let float16Byte: UInt8 = 0xF9
    static let float32Byte: UInt8 = 0xFA
    static let float64Byte: UInt8 = 0xFB

    /// Appends the shortest head of `major` with `argument`.
    static func write(_ major: Major, _ argument: UInt64, to output: inout [UInt8]) {
        let top = major.rawValue << 5
        switch argument {
        case 0..<24:
            output.append(top | UInt8(argument))
        case 24...0xFF:
            output.append(top | 24)
            output.append(UInt8(argument))
        case 0x100...0xFFFF:
            output.append(top | 25)
            output.appendBigEndian(UInt16(argument))
        case 0x1_0000...0xFFFF_FFFF:
            output.append(top | 26)
            output.appendBigEndian(UInt32(argument))
        default:
            output.append(top | 27)
            output.appendBigEndian(argument)
        }
    }

    /// Bytes a head with `argument` takes.
    static func length(of argument: UInt64) -> Int {
        switch argument {
        case 0..<24: return 1
        case 24...0xFF: return 2
        case 0x100...0xFFFF: return 3
        case 0x1_0000...0xFFFF_FFFF: return 5
        default: return 9
        }
    }
}
