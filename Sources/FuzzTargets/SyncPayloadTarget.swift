import Foundation
import GroupSyncCore

extension FuzzTarget {
    /// `SyncPayload.decode`, the plaintext of every synced entry another machine sealed
    /// (docs/SYNC.md, section 5), whose fast path (`SyncPayload.canonical`) reads GroupSync's
    /// own bytes without `JSONDecoder` and promises the same answer.
    ///
    /// Input: `u8 mode ‖ rest`. Mode even: the rest is a plaintext as an authenticated writer
    /// might have sealed it; `decode` must not trap, and whenever the fast path takes it,
    /// `JSONDecoder` must read the same key and value (and the fast path must take nothing
    /// `JSONDecoder` refuses). Mode odd: the rest is a key (its first byte is its length) and a
    /// value; the payload GroupSync writes for them must read back as exactly that key and value
    /// (through the fast path, or `JSONDecoder` for a key with an escape other than `\/`), and be
    /// byte for byte what `JSONEncoder` with sorted keys writes.
    static let syncPayload = FuzzTarget(
        name: "sync-payload",
        summary: "SyncPayload.canonical agrees with JSONDecoder on any bytes; GroupSync's own payloads read back exactly",
        run: { input throws(FuzzFinding) in
            guard let mode = input.first else { return .refused }
            let rest = Array(input.dropFirst())
            if mode % 2 == 0 {
                let fast = SyncPayload.canonical(rest)
                let general = try? JSONDecoder().decode(SyncPayload.self, from: Data(rest))
                let decoded = try? SyncPayload.decode(rest)
                if let fast {
                    try expect(general == fast, "the fast path read \(fast) where JSONDecoder read \(String(describing: general))")
                }
                return decoded == nil ? .refused : .accepted
            }
            guard let length = rest.first, rest.count >= 1 + Int(length) else { return .refused }
            let key = String(decoding: rest[1..<(1 + Int(length))], as: UTF8.self)
            let value = Data(rest[(1 + Int(length))...].prefix(4096))
            let payload = SyncPayload(key: key, value: value)
            let written = payload.encoded()
            try expect((try? SyncPayload.decode(written)) == payload, "GroupSync's own payload for \(payload) read back otherwise")
            if let fast = SyncPayload.canonical(written) {
                try expect(fast == payload, "the fast path read GroupSync's own payload for \(payload) as \(fast)")
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let reference = try? encoder.encode(payload)
            try expect(reference.map(Array.init) == written, "the payload writer differs from JSONEncoder for \(payload)")
            return .accepted
        },
        seeds: {
            [
                "valid-own-payload": [1, 5] + Array("themedark".utf8),
                "valid-own-payload-slash-and-unicode": [1, 8] + Array("a/b é".utf8) + [0xff, 0xfe, 0x3f],
                // Found by libFuzzer: control characters in the key, escaped, so read by JSONDecoder.
                "valid-own-payload-control-characters": [1, 8, 1, 0] + Array("b é".utf8) + [0xff, 0xfe, 0x3f],
                "valid-canonical-bytes": [0] + Array(#"{"key":"theme","value":"ZGFyaw=="}"#.utf8),
                "valid-removal": [0] + Array(#"{"key":"theme"}"#.utf8),
                "valid-other-writer-spacing": [0] + Array(#"{ "value": "ZGFyaw==", "key": "the\u006de" }"#.utf8),
                "escaped-slash-in-base64": [0] + Array(#"{"key":"k","value":"\/\/8="}"#.utf8),
                "unpadded-base64": [0] + Array(#"{"key":"k","value":"ZGFyaw"}"#.utf8),
                "member-given-twice": [0] + Array(#"{"key":"k","key":"j"}"#.utf8),
            ]
        })
}
