import Foundation
import Keyring

extension FuzzTarget {
    /// `GroupIdentifier(validating:)` on arbitrary UTF-8, compared with an independent reading
    /// of the rules in its documentation; an accepted identifier must round-trip through its
    /// raw value, its parts and JSON.
    static let groupIdentifier = FuzzTarget(
        name: "group-identifier",
        summary: "GroupIdentifier(validating:) against the documented rules; valid identifiers round-trip",
        run: { input throws(FuzzFinding) in
            let string = String(decoding: input, as: UTF8.self)
            let shown = string.debugDescription
            let expectedValid = GroupIdentifierRules.isValid(string)
            try expect(
                GroupIdentifier.isValidTeamID(string) == GroupIdentifierRules.isTeamID(Substring(string)),
                "isValidTeamID(\(shown)) disagrees with the rule (10 of A-Z, 0-9)")
            let identifier: GroupIdentifier
            do throws(KeyringError) {
                identifier = try GroupIdentifier(validating: string)
            } catch {
                try expect(!expectedValid, "\(shown) follows every documented rule but was refused: \(error)")
                try expect(error.status == .invalidParameter, "\(shown) was refused with \(error.status), not errSecParam")
                try expect(GroupIdentifier(rawValue: string) == nil, "init(rawValue:) accepts \(shown), which init(validating:) refuses")
                try expect(
                    (try? JSONDecoder().decode([GroupIdentifier].self, from: JSONEncoder().encode([string]))) == nil,
                    "JSON decoding accepts \(shown), which init(validating:) refuses")
                return .refused
            }
            try expect(expectedValid, "\(shown) breaks a documented rule but was accepted")
            try GroupIdentifierRules.checkParts(of: identifier, string: string)
            return .accepted
        },
        seeds: {
            [
                "valid-application-group": Array("group.com.example.shared".utf8),
                "valid-team-prefixed": Array("ABCDE12345.com.example.shared".utf8),
                "valid-longest": Array(("group." + String(repeating: "a", count: 122)).utf8),
                "one-byte-too-long": Array(("group." + String(repeating: "a", count: 123)).utf8),
                "unexpanded-variable": Array("$(TeamIdentifierPrefix)com.example".utf8),
                "doubled-dot": Array("group..example".utf8),
                "short-team": Array("ABCDE1234.com.example".utf8),
                "lowercase-team": Array("abcde12345.com.example".utf8),
                "non-ascii": Array("group.exämple".utf8),
                "invalid-utf8": [0x67, 0x72, 0x6F, 0x75, 0x70, 0x2E, 0xC3, 0x28],
            ]
        })
}

/// The rules of ``GroupIdentifier`` as its documentation states them, written out separately
/// from its implementation so that the two can be compared.
enum GroupIdentifierRules {
    /// 1 to 128 bytes of ASCII letters, digits, `-` and `.`; at least two components, none
    /// empty; the first is `group` or a team id.
    static func isValid(_ string: String) -> Bool {
        let bytes = Array(string.utf8)
        guard (1...GroupIdentifier.maximumLength).contains(bytes.count) else { return false }
        guard bytes.allSatisfy(isAllowed) else { return false }
        let components = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard components.count >= 2, !components.contains(where: \.isEmpty) else { return false }
        let first = String(decoding: components[0], as: UTF8.self)
        return first == "group" || isTeamID(Substring(first))
    }

    /// Exactly 10 characters of `A-Z` and `0-9`.
    static func isTeamID(_ string: Substring) -> Bool {
        let bytes = Array(string.utf8)
        return bytes.count == 10 && bytes.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    /// An accepted identifier keeps its text, splits into prefix and name as documented, and
    /// survives `init(rawValue:)` and JSON unchanged.
    static func checkParts(of identifier: GroupIdentifier, string: String) throws(FuzzFinding) {
        let shown = string.debugDescription
        try expect(identifier.rawValue.utf8.elementsEqual(string.utf8), "\(shown) was accepted as \(identifier.rawValue.debugDescription)")
        try expect(identifier.description == identifier.rawValue, "description of \(shown) is not its raw value")
        try expect(GroupIdentifier(rawValue: string) == identifier, "init(rawValue:) disagrees with init(validating:) on \(shown)")
        let isGroupStyle = string.utf8.starts(with: "group.".utf8)
        try expect(identifier.isApplicationGroupStyle == isGroupStyle, "isApplicationGroupStyle is wrong for \(shown)")
        let prefix: String
        if isGroupStyle {
            try expect(identifier.teamID == nil, "\(shown) is group-style but has team id \(identifier.teamID ?? "")")
            prefix = "group."
        } else {
            guard let team = identifier.teamID, isTeamID(Substring(team)) else {
                throw FuzzFinding("\(shown) is team-prefixed but its teamID is \(identifier.teamID.debugDescription)")
            }
            prefix = team + "."
        }
        try expect(!identifier.name.isEmpty, "\(shown) has an empty name")
        try expect((prefix + identifier.name).utf8.elementsEqual(string.utf8), "prefix \(prefix) and name \(identifier.name) of \(shown) do not rebuild it")
        do {
            let decoded = try JSONDecoder().decode([GroupIdentifier].self, from: JSONEncoder().encode([identifier]))
            try expect(decoded == [identifier], "\(shown) changed through JSON: \(decoded)")
        } catch let finding as FuzzFinding {
            throw finding
        } catch {
            throw FuzzFinding("\(shown) does not survive JSON: \(error)")
        }
    }
}
