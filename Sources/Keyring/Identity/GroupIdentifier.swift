import SealedStorage

/// A validated app group or keychain access group identifier.
///
/// Two forms exist, as on Apple platforms:
/// - `group.<name>`: an iOS-style application group, e.g. `group.com.example.shared`;
/// - `<TEAMID>.<name>`: team-prefixed, e.g. `ABCDE12345.com.example.shared` (keychain access
///   groups, application identifiers, and macOS-style application groups). A team id is
///   exactly 10 characters of `A-Z` and `0-9`.
///
/// Allowed characters are ASCII letters, digits, `-` and `.`; no empty component (`..`, or a
/// leading or trailing dot); at most ``maximumLength`` bytes, which keeps socket and lock file
/// paths built from it within `sun_path` and `NAME_MAX`.
public struct GroupIdentifier: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The longest identifier accepted, in bytes.
    public static let maximumLength = 128

    /// The identifier as written in an entitlements file.
    public let rawValue: String

    /// Validates `rawValue`; `nil` if it is not a well-formed identifier.
    public init?(rawValue: String) {
        guard Self.problem(with: rawValue) == nil else { return nil }
        self.rawValue = rawValue
    }

    /// Validates `string`, throwing an error that says what is wrong with it.
    /// - Throws: ``KeyringError`` with ``KeyringStatus/invalidParameter``.
    public init(validating string: String) throws(KeyringError) {
        if let problem = Self.problem(with: string) {
            throw KeyringError(.invalidParameter, "invalid group identifier \"\(Self.printable(string))\": \(problem)")
        }
        self.rawValue = string
    }

    /// The team id of a team-prefixed identifier, `nil` for a `group.` identifier.
    public var teamID: String? {
        isApplicationGroupStyle ? nil : String(rawValue.prefix(10))
    }

    /// True for `group.<name>` identifiers.
    public var isApplicationGroupStyle: Bool { rawValue.hasPrefix("group.") }

    /// The part after `group.` or after `TEAMID.`.
    public var name: String {
        String(rawValue.dropFirst(isApplicationGroupStyle ? 6 : 11))
    }

    /// Whether `string` is a team id: 10 characters of `A-Z` and `0-9`.
    public static func isValidTeamID(_ string: String) -> Bool {
        isTeamID(string.utf8)
    }

    /// ``isValidTeamID(_:)`` over UTF-8 bytes, for checks that already work byte-wise.
    private static func isTeamID<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        bytes.count == 10 && bytes.allSatisfy { (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }
    }

    /// Why `string` is not a bundle identifier (letters, digits, `-` and `.`, no empty
    /// component, short enough that `TEAMID.<bundle id>` is a valid identifier), or `nil`.
    static func problem(withBundleID string: String) -> String? {
        if string.isEmpty { return "it is empty" }
        // The application identifier is "TEAMID." + bundle id and must itself be valid.
        let limit = maximumLength - 11
        if string.utf8.count > limit { return "it is \(string.utf8.count) bytes long; the limit is \(limit)" }
        return problem(with: "ABCDE12345." + string)
    }

    /// Orders identifiers by their text, for stable listings and lock ordering.
    public static func < (lhs: GroupIdentifier, rhs: GroupIdentifier) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The identifier as written in an entitlements file.
    public var description: String { rawValue }

    /// Decodes a string and validates it; a malformed identifier is a `DecodingError`.
    public init(from decoder: any Decoder) throws {
        let string = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(validating: string)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.reason))
        }
    }

    /// Encodes the identifier as a plain string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Why `string` is not a valid identifier, or `nil` if it is.
    static func problem(with string: String) -> String? {
        let bytes = Array(string.utf8)
        if bytes.isEmpty { return "it is empty" }
        if bytes.count > maximumLength { return "it is \(bytes.count) bytes long; the limit is \(maximumLength)" }
        let allowed: (UInt8) -> Bool = { byte in
            (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
        // Checked before the character set: '$' alone would be reported as a bad character,
        // hiding the real mistake (an Xcode variable that was never expanded).
        // Byte-wise, like everything here: every item row read validates its group, so this
        // is on the warm lookup path.
        let dollar = UInt8(ascii: "$")
        if containsPair(bytes, where: { $0 == dollar && ($1 == UInt8(ascii: "(") || $1 == UInt8(ascii: "{")) }) {
            return "it contains an unexpanded build variable such as $(TeamIdentifierPrefix)"
        }
        if let bad = bytes.first(where: { !allowed($0) }) {
            let shown = bad >= 0x20 && bad < 0x7F ? "'\(Character(Unicode.Scalar(bad)))'" : "byte 0x\(String(bad, radix: 16))"
            return "\(shown) is not allowed (use letters, digits, '-' and '.')"
        }
        let dot = UInt8(ascii: ".")
        if bytes.first == dot || bytes.last == dot || containsPair(bytes, where: { $0 == dot && $1 == dot }) {
            return "it has an empty component (a leading, trailing or doubled '.')"
        }
        guard let firstDot = bytes.firstIndex(of: dot) else {
            return "it needs a prefix: \"group.<name>\" or \"<TEAMID>.<name>\""
        }
        let prefix = bytes[..<firstDot]
        if prefix.elementsEqual("group".utf8) { return nil }
        if isTeamID(prefix) { return nil }
        return "it must start with \"group.\" or a 10-character team id such as \"ABCDE12345.\""
    }

    /// Whether two adjacent bytes of `bytes` satisfy `pair`. Indices rather than
    /// `zip(bytes, bytes.dropFirst())`: a new process instantiating that `Zip2Sequence` looks
    /// its conformances up among every loaded library's, and every process checks a group.
    private static func containsPair(_ bytes: [UInt8], where pair: (UInt8, UInt8) -> Bool) -> Bool {
        guard bytes.count > 1 else { return false }
        for index in 1..<bytes.count where pair(bytes[index - 1], bytes[index]) { return true }
        return false
    }

    /// Shows control characters and overlong input safely in an error message.
    static func printable(_ string: String) -> String {
        UntrustedText.printable(string)
    }
}
