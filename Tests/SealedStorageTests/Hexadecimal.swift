/// Hexadecimal text for test vectors and for searching printed text for secret bytes.
enum Hexadecimal {
    /// The bytes of `text` (pairs of hex digits; whitespace ignored). Traps on malformed text,
    /// which can only be a typo in a test's own constant.
    static func bytes(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace })
        precondition(digits.count % 2 == 0, "odd number of hex digits")
        return stride(from: 0, to: digits.count, by: 2).map { index in
            UInt8(String(digits[index...index + 1]), radix: 16)!
        }
    }

    /// `bytes` as lowercase hexadecimal.
    static func string(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let text = String(byte, radix: 16)
            return byte < 0x10 ? "0" + text : text
        }.joined()
    }
}
