import GroupSyncCore
import SealedStorage
import Vault

/// Compares the rows a verification reads, page by page in name order, with the entries this
/// machine accepted (``VerificationRound``): which rows must be judged, and which entries the
/// server no longer lists.
struct ServerComparison {
    /// The machine's cursor when the comparison began: a row above it is the next catch-up's.
    let cursor: Int64
    /// What was found so far.
    private(set) var verification = SyncVerification()
    /// The entries the server listed, at any change number, of those this machine holds:
    /// what a server lists beyond them takes no memory here.
    private var listed = Set<EntryName>()

    init(cursor: Int64) {
        self.cursor = cursor
    }

    /// Compares one page with `entries`; returns the rows to judge as catch-up rows: those at
    /// or below the cursor that are not the row this machine accepted for their entry.
    mutating func compare(_ rows: [ServerRow], with entries: [EntryName: ReplicaState.Entry]) -> [ServerRow] {
        var judged: [ServerRow] = []
        for row in rows {
            verification.rowsRead += 1
            let name = EntryName(row.name)
            if let name, entries[name] != nil { listed.insert(name) }
            // Written since this machine caught up: the next catch-up reads it, in change order.
            guard row.change <= cursor else { continue }
            guard let name, let entry = entries[name], entry.seen > 0,
                  let sequence = UInt64(exactly: row.sequence), sequence <= entry.seen else {
                verification.unread += 1
                judged.append(row)
                continue
            }
            if sequence < entry.seen {
                verification.older += 1
                judged.append(row)
            } else if !entry.isAccepted(row.blob) {
                verification.differing += 1
                judged.append(row)
            }
        }
        return judged
    }

    /// Counts the refusals that judging rows of this comparison gave.
    mutating func count(_ refused: [VaultError]) {
        for error in refused { verification.refusals[error.code.rawValue, default: 0] += 1 }
    }

    /// The entries of `entries`, the state's when the comparison began, this machine accepted a
    /// row of that the server did not list, once every page is compared; counted as `missing`,
    /// and as `notFound` refusals.
    mutating func missing(from entries: [EntryName: ReplicaState.Entry]) -> [EntryName] {
        let accepted = entries.filter { $0.value.seen > 0 }
        verification.entriesCompared = accepted.count
        let missing = accepted.keys.filter { !listed.contains($0) }.sorted()
        verification.missing = missing.count
        if !missing.isEmpty { verification.refusals[VaultError.Code.notFound.rawValue, default: 0] += missing.count }
        return missing
    }
}

extension ReplicaState.Entry {
    /// Whether `blob` is, byte for byte, the blob this machine accepted at ``seen`` (or, in a
    /// state an earlier revision wrote, has its digest).
    func isAccepted(_ blob: [UInt8]) -> Bool {
        if let accepted { return accepted == blob }
        return seenDigest == Digest.blake2b256(blob)
    }
}
