/// The value of `kSecAttrCreator` or `kSecAttrType` on a password.
///
/// Apple documents a number: a four-character code such as `'aCrt'` as a `UInt32`, most
/// significant byte first. Code also passes strings (KeychainAccess's suite sets
/// `"Creator Test"`), and a device stores and returns those as strings; both are kept as given.
/// Stored items hold a JSON number or string.
public enum FourCharacterCode: Sendable, Hashable, Codable {
    /// A number, as Apple documents (`CFNumber`).
    case number(UInt32)
    /// A string, as some code passes it.
    case text(String)

    /// An absent code, which a device stores (and matches) as the number 0.
    public static let absent = FourCharacterCode.number(0)

    /// The code from its JSON form, a number or a string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(UInt32.self) {
            self = .number(number)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    /// The code as a JSON number or string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let number): try container.encode(number)
        case .text(let text): try container.encode(text)
        }
    }

    /// `'aCrt' (0x61437274)` when a number's four bytes are printable ASCII, else the number;
    /// a string in quotes, escaped. For messages.
    var summary: String {
        switch self {
        case .text(let text):
            return "\"\(GroupIdentifier.printable(text))\""
        case .number(let code):
            let bytes = [UInt8(code >> 24), UInt8(code >> 16 & 0xFF), UInt8(code >> 8 & 0xFF), UInt8(code & 0xFF)]
            let hex = "0x" + String(code, radix: 16)
            guard bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return hex }
            return "'\(String(decoding: bytes, as: UTF8.self))' (\(hex))"
        }
    }

    /// Whether two codes are equal as a device compares them: numbers by value, strings byte
    /// for byte, a number never equal to a string.
    func matches(_ other: FourCharacterCode) -> Bool {
        switch (self, other) {
        case (.number(let a), .number(let b)): a == b
        case (.text(let a), .text(let b)): a.hasSameUTF8(as: b)
        default: false
        }
    }
}
