import GroupSyncCore
import SealedStorage

extension FuzzTarget {
    /// A `NOTIFY` payload from a sync server (docs/SYNC.md, section 6, "Notifications"): anyone
    /// who can reach the server can send one on a space's channel, so it is as untrusted as a row.
    ///
    /// Input: the payload's bytes (as the listener reads them, UTF-8 decoded). The parser must not
    /// trap; a row it yields must have a 32-byte name and a blob of 1 to 3,900 bytes, must read
    /// back the same from the payload the server would send for it, and must go through the
    /// judge like any row (the sync-row target's checks).
    static let syncNotification = FuzzTarget(
        name: "sync-notification",
        summary: "ChangeNotification(payload:) on payloads anyone can send; a row it yields is well formed and judged as every row",
        run: { input throws(FuzzFinding) in
            guard let row = ChangeNotification(payload: String(decoding: input, as: UTF8.self)).row else { return .refused }
            try expect(row.name.count == 32, "a notified row has a \(row.name.count)-byte name")
            try expect(!row.blob.isEmpty && row.blob.count <= ChangeNotification.largestNotifiedBlob, "a notified row has a \(row.blob.count)-byte blob")
            try expect(ChangeNotification(payload: ChangeNotification.payload(for: row)).row == row, "a notified row does not read back from its own payload")
            _ = try SyncRowChecks.judgeRaw(row, seen: 0)
            return .accepted
        },
        seeds: {
            let honest = SyncRowChecks.honestRow(key: "theme", value: Array("dark".utf8), sequence: 3)
            let row = ServerRow(name: honest.name, sequence: 3, change: 42, blob: honest.blob)
            let payload = ChangeNotification.payload(for: row)
            return [
                "valid-notified-row": Array(payload.utf8),
                "change-number-alone": Array("42".utf8),
                "uppercase-hex": Array(payload.uppercased().utf8),
                "truncated-row": Array(payload.utf8.dropLast(3)),
            ]
        })
}
