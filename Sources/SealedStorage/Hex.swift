/// Lowercase hexadecimal, the one encoding used for digests, fingerprints and random names.
package enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `bytes` as lowercase hexadecimal, two digits a byte.
    package static func lowercase<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var characters: [UInt8] = []
        characters.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            characters.append(digits[Int(byte >> 4)])
            characters.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: characters, as: UTF8.self)
    }
}
