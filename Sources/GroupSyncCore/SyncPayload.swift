#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage

/// The plaintext of a synced entry (schema version 1, docs/SYNC.md, section 5): the JSON object
/// `{"key": <the entry's key>, "value": <base64 of the value's bytes>}`, without `"value"` for a
/// removal.
///
/// Written by ``encoded()`` as `JSONEncoder` with sorted keys writes it. Read by
/// ``decode(_:)``, which takes the bytes GroupSync's own writer produces (`{"key":"…","value":"…"}`, `/` escaped as `\/` and nothing else escaped in
/// the value) without `JSONDecoder`, and hands anything else (another writer's spacing or member
/// order, any other escape in the key) to `JSONDecoder`. A first sync opens every entry: the
/// decoder was about a tenth of its time.
package struct SyncPayload: Codable, Equatable {
    /// The entry's key.
    package var key: String
    /// The value's bytes, `nil` for a removal.
    package var value: Data?

    /// A payload of `key` and `value` (`nil`: a removal).
    package init(key: String, value: Data?) {
        self.key = key
        self.value = value
    }

    /// The payload's bytes as GroupSync seals them: byte for byte what `JSONEncoder` with sorted
    /// keys writes (`SyncPayloadTests` compare the two), without its machinery, which cost more
    /// than the rest of sealing a `set`'s value on the path to another machine.
    package func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(key.utf8.count + (value.map { $0.count / 3 * 4 + 4 } ?? 0) + 24)
        bytes.append(contentsOf: Self.keyMember)
        JSONStringWriter.write(key, slashes: .escaped, to: &bytes)
        if let value {
            bytes.append(contentsOf: Self.valueMemberName)
            JSONStringWriter.write(value.base64EncodedString(), slashes: .escaped, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    private static let keyMember = Array(#"{"key":"#.utf8)
    private static let valueMemberName = Array(#","value":"#.utf8)

    /// The payload `plaintext` holds.
    /// - Throws: what `JSONDecoder` throws for bytes that are not a payload, or
    ///   ``MembersNotUnique`` for one that names a member twice (which `JSONDecoder` reads as
    ///   the first and other readers as the last) or nests deeper than ``JSONMemberNames`` reads.
    package static func decode(_ plaintext: [UInt8]) throws -> SyncPayload {
        // GroupSync's own bytes name each member once by construction.
        if let payload = canonical(plaintext) { return payload }
        let payload = try JSONDecoder().decode(SyncPayload.self, from: Data(plaintext))
        guard JSONMemberNames.areUnique(in: plaintext) else { throw MembersNotUnique() }
        return payload
    }

    /// A payload whose JSON names a member twice in one object, or nests too deep to tell.
    package struct MembersNotUnique: Error, CustomStringConvertible {
        package var description: String { "the payload's JSON names a member twice, or nests too deep to tell" }
    }

    private static let keyPrefix = Array(#"{"key":""#.utf8)
    private static let valueMember = Array(#"","value":""#.utf8)
    private static let end = Array(#""}"#.utf8)

    /// The payload when `bytes` are exactly what GroupSync's writer produces, else `nil`: every
    /// byte is accounted for, so what this returns is what `JSONDecoder` would.
    package static func canonical(_ bytes: [UInt8]) -> SyncPayload? {
        guard bytes.starts(with: keyPrefix) else { return nil }
        let keyStart = keyPrefix.count
        var index = keyStart
        // The key: any byte but `"`, `\` and the control characters JSON escapes, and `/`
        // written `\/`; any other escape is left to `JSONDecoder`. Read in place: a key with no
        // escape and no byte above ASCII (the common one) becomes a `String` without a copy of
        // its own or a UTF-8 check, which cost a first sync about as much as the rest of
        // reading the payload.
        var escapedSlashes = false
        var ascii = true
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] >= 0x20 {
            if bytes[index] == UInt8(ascii: "\\") {
                guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") else { return nil }
                escapedSlashes = true
                index += 1
            }
            ascii = ascii && bytes[index] < 0x80
            index += 1
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let spelt = bytes[keyStart..<index]
        let key: String
        if escapedSlashes || !ascii {
            // Every backslash here escapes the `/` after it (checked above).
            guard let valid = String(validating: spelt.filter { $0 != UInt8(ascii: "\\") }, as: UTF8.self) else { return nil }
            key = valid
        } else {
            key = String(decoding: spelt, as: UTF8.self)
        }
        let rest = bytes[index...]
        if rest.elementsEqual(end) { return SyncPayload(key: key, value: nil) }
        guard rest.starts(with: valueMember), rest.count >= valueMember.count + end.count, rest.suffix(end.count).elementsEqual(end) else { return nil }
        // Base64, with `/` written `\/`, up to the quote before the closing brace: nothing else
        // may be escaped or appear.
        let scan = bytes.withUnsafeBufferPointer { JSONBase64String.scan($0, contentsFrom: rest.startIndex + valueMember.count) }
        guard case .decoded(let value, let closingQuote) = scan, closingQuote == bytes.count - end.count else { return nil }
        return SyncPayload(key: key, value: value)
    }
}
