import SealedStorage

/// The payload of a space's `NOTIFY` (docs/SYNC.md, section 6, "Notifications"): the change
/// number, and, when the row is small enough to fit in a notification, the row itself, so that
/// a listening machine can take a write without a query first.
///
/// Two forms, told apart by their number of space-separated fields:
/// - `<change>`: the change number alone (what every client sent before the row was added, and
///   what is sent for a blob too large for a notification);
/// - `<change> <sequence> <hex name> <hex blob>`: the row as stored, its bytes in lowercase hex.
///
/// Whatever the form, a listener catches up after it: the row is only a head start, judged as
/// every row is (``ServerRow/judge(seen:seenDigest:naming:space:key:)``), and everything in it is
/// as untrusted as a row that a query returned.
package struct ChangeNotification: Sendable, Equatable {
    /// The largest blob sent in a notification: PostgreSQL refuses payloads of 8,000 bytes or
    /// more, and a blob in hex takes twice its size plus at most 106 bytes for the other fields.
    package static let largestNotifiedBlob = 3_900

    /// The row the payload carries, `nil` for the change number alone or a payload that is
    /// neither form (another client's, or something else sent on the channel).
    package var row: ServerRow?

    /// Reads `payload`; never fails: a payload that does not parse carries no row.
    package init(payload: String) {
        let fields = payload.utf8.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard fields.count == 4,
              let change = Int64(Substring(fields[0])),
              let sequence = Int64(Substring(fields[1])),
              let name = Hex.bytes(lowercase: Substring(fields[2]).utf8), name.count == 32,
              fields[3].count <= 2 * Self.largestNotifiedBlob,
              let blob = Hex.bytes(lowercase: Substring(fields[3]).utf8), !blob.isEmpty
        else {
            row = nil
            return
        }
        row = ServerRow(name: name, sequence: sequence, change: change, blob: blob)
    }

    /// The payload the server sends for `row` (``payloadExpression``), written here: what the
    /// fuzz target and the tests read back.
    package static func payload(for row: ServerRow) -> String {
        guard row.blob.count <= largestNotifiedBlob else { return String(row.change) }
        return "\(row.change) \(row.sequence) \(Hex.lowercase(row.name)) \(Hex.lowercase(row.blob))"
    }

    /// The SQL expression of the payload for the row `written` (with columns `change`,
    /// `sequence`, `name`, `blob`), as the compare-and-swap computes it on the server.
    package static let payloadExpression = """
        change::text || CASE WHEN octet_length(blob) <= \(largestNotifiedBlob) \
        THEN ' ' || sequence::text || ' ' || encode(name, 'hex') || ' ' || encode(blob, 'hex') ELSE '' END
        """
}
