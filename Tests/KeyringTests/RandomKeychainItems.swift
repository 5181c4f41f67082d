import Foundation
import GroupVaultTestKit
@testable import Keyring

/// Seeded random keychain items for the tests of item row bodies: every attribute a row holds,
/// each absent or present, text that needs every kind of escape, arbitrary dates.
enum RandomKeychainItems {
    /// Text that needs every kind of JSON escape: quotes, backslashes, slashes, control
    /// characters, non-ASCII and characters outside the Basic Multilingual Plane.
    static let awkwardText = ["", "plain", "a\"b\\c/d", "tab\there\nnew\r\u{8}\u{c}\u{1}\u{1f}", "é€𝄞😀", "https://example.com/a?b=c", " spaced "]

    static func text(using rng: inout SeededGenerator) -> String? {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return nil
        case 1: return awkwardText.randomElement(using: &rng)
        default:
            let scalars = (0..<Int.random(in: 0..<12, using: &rng)).map { _ -> Character in
                let value = [UInt32.random(in: 0...0x7F, using: &rng), UInt32.random(in: 0x80...0xD7FF, using: &rng), UInt32.random(in: 0x10000...0x10FFFF, using: &rng)].randomElement(using: &rng)!
                return Character(Unicode.Scalar(value)!)
            }
            return String(scalars)
        }
    }

    static func data(using rng: inout SeededGenerator) -> Data? {
        Bool.random(using: &rng) ? nil : Data(rng.bytes(count: Int.random(in: 0..<40, using: &rng)))
    }

    static func item(using rng: inout SeededGenerator) -> KeychainItem {
        var item = KeychainItem(
            ItemClass.allCases.randomElement(using: &rng)!,
            service: text(using: &rng), account: text(using: &rng),
            accessGroup: Bool.random(using: &rng) ? GroupIdentifier(rawValue: "ABCDE12345.com.example.shared") : nil,
            secret: Data(rng.bytes(count: Int.random(in: 0..<64, using: &rng))),
            label: text(using: &rng), itemDescription: text(using: &rng), comment: text(using: &rng),
            generic: data(using: &rng), isSynchronizable: Bool.random(using: &rng),
            accessibility: Accessibility.allCases.randomElement(using: &rng)!,
            accessControl: AccessControlFlags(rawValue: UInt.random(in: 0...UInt(UInt32.max), using: &rng)),
            server: text(using: &rng), protocol: text(using: &rng),
            port: Bool.random(using: &rng) ? nil : Int.random(in: -70_000...70_000, using: &rng),
            path: text(using: &rng), authenticationType: text(using: &rng), securityDomain: text(using: &rng))
        item.accountEncoding = [nil, .text, .data].randomElement(using: &rng)!
        if Bool.random(using: &rng) {
            // As Keyring.currentTime() makes them, and arbitrary ones.
            item.creationDate = Date(timeIntervalSince1970: Date().timeIntervalSince1970)
            item.modificationDate = Date(timeIntervalSince1970: Double.random(in: -1e10...1e10, using: &rng))
        }
        item.persistentReference = data(using: &rng)
        item.creator = code(using: &rng)
        item.type = code(using: &rng)
        item.isInvisible = [nil, false, true].randomElement(using: &rng)!
        item.isNegative = [nil, false, true].randomElement(using: &rng)!
        return item
    }

    /// A four-character code: absent, a number, or text.
    static func code(using rng: inout SeededGenerator) -> FourCharacterCode? {
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: return nil
        case 1: return .number(UInt32.random(in: 0...UInt32.max, using: &rng))
        default: return .text(text(using: &rng) ?? "")
        }
    }
}
