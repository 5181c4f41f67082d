import Foundation
import SealedStorage

extension FuzzTarget {
    /// `JSONMemberNames.areUnique`, which GroupSync runs on a synced entry's payload and a
    /// key-value store value another writer sealed (docs/SYNC.md, section 5), on any bytes: it
    /// must not trap, and on any JSON text `JSONSerialization` reads it must call that text as
    /// `JSONSerialization` writes it back (its names unique) unique, and the same with an
    /// object's first member written twice not unique (texts written back in ASCII).
    static let jsonMemberNames = FuzzTarget(
        name: "json-member-names",
        summary: "JSONMemberNames.areUnique never traps; true for unique names, false for a member written twice",
        run: { input throws(FuzzFinding) in
            _ = JSONMemberNames.areUnique(in: input)
            guard let object = try? JSONSerialization.jsonObject(with: Data(input), options: [.fragmentsAllowed]),
                  let written = try? JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed, .sortedKeys])
            else { return .refused }
            let text = [UInt8](written)
            // Non-ASCII names may be canonically equivalent yet distinct to `JSONSerialization`,
            // and one name to the scanner (as to `JSONDecoder`): only ASCII texts are compared.
            guard text.allSatisfy({ $0 < 0x80 }) else { return .accepted }
            try expect(JSONMemberNames.areUnique(in: text), "names of \(String(decoding: text, as: UTF8.self)) called repeated")
            guard let members = object as? [String: Any], let first = members.keys.sorted().first,
                  let member = try? JSONSerialization.data(withJSONObject: [first: members[first]!], options: [.fragmentsAllowed, .sortedKeys])
            else { return .accepted }
            // `{"first":…}` and the text: `{"first":…,` followed by the text after its `{`.
            let twice = Array(member.dropLast()) + [UInt8(ascii: ",")] + text.dropFirst()
            try expect(!JSONMemberNames.areUnique(in: twice), "\(String(decoding: twice, as: UTF8.self)) called unique")
            return .accepted
        },
        seeds: {
            [
                "valid-payload": Array(#"{"key":"theme","value":"eyJzdHJpbmciOiJkYXJrIn0="}"#.utf8),
                "valid-nested-value": Array(#"{"dict":{"a":{"array":[{"int":1},{"string":"}\",{"}]},"b":{"bool":true}}}"#.utf8),
                "valid-escaped-names": Array(#"{"k\u0065y":1,"\ud83d\ude00":2,"a\/b":3}"#.utf8),
                "member-given-twice": Array(#"{"key":"k","key":"j"}"#.utf8),
                "not-json": Array(#"{"key":"k""#.utf8),
            ]
        })
}
