import Keyring
import SealedStorage
import Vault

/// One row of `groupsync_entry` as the server returned it: everything in it is untrusted until
/// ``judge(against:naming:space:key:)`` has admitted it.
package struct ServerRow: Sendable, Equatable {
    /// The entry's keyed name (32 bytes).
    package var name: [UInt8]
    /// The entry's sequence, as the server's column says; must equal the sealed header's.
    package var sequence: Int64
    /// The server's change number (its order of writes in the space), used only to resume
    /// catch-up; nothing about trust depends on it.
    package var change: Int64
    /// The sealed entry.
    package var blob: [UInt8]

    /// A row as read (the fuzz target builds its own).
    package init(name: [UInt8], sequence: Int64, change: Int64, blob: [UInt8]) {
        self.name = name
        self.sequence = sequence
        self.change = change
        self.blob = blob
    }

    /// What a machine does with a row.
    package enum Verdict: Sendable, Equatable {
        /// Authentic and newer than anything seen for the entry.
        case accept(SyncEnvelope)
        /// Authentic and newer than anything seen, but no entry of its store (`reason`, an
        /// `invalidRecord`): its sequence is the entry's from now on, so that this machine's
        /// next write of the key goes above it, and the key is shown as absent.
        case acceptAsAbsent(SyncEnvelope, reason: VaultError)
        /// Exactly what was seen already (a repeated notification, a catch-up overlap).
        case duplicate
        /// Refused, with the Vault's code and reason.
        case refuse(VaultError)
    }

    /// How far above the highest sequence seen a row may be (docs/FORMAT.md, "The top of the
    /// sequence space"): further is a key holder trying to make the entry unwritable.
    package static let sequenceWindow: UInt64 = 1 << 32

    /// What of a row is known before what this machine has seen of its entry is looked at.
    package enum Opened: Sendable, Equatable {
        /// Well formed, authentic, and sealed at the row's sequence.
        case opened(SyncEnvelope)
        /// Authentic and sealed at the row's sequence, but no entry of its store: `reason`.
        case unreadable(SyncEnvelope, reason: VaultError)
        /// Refused whatever was seen, with the Vault's code and reason.
        case refused(VaultError)
    }

    /// The checks of ``judge(seen:seenDigest:naming:space:key:)`` that do not depend on what
    /// this machine has seen, in its order: shape (32-byte name, positive sequence) →
    /// `malformed`; the Vault's checks of the blob (``SyncEnvelope/open(_:name:naming:space:key:)``);
    /// the header's sequence must be the row's (`malformed`: a server editing the column).
    /// Separate so that a page's rows (each a decryption and a JSON decode) can be opened on
    /// every core, then judged in order against the state.
    ///
    /// `contents` judges an authentic entry sealed at the row's sequence against what its store
    /// holds (a key-value store's key and value, say): the reason it is no entry of the store
    /// (``Opened/unreadable(_:reason:)``, an `invalidRecord`), or `nil`.
    package func open(
        naming: SyncNaming, space: [UInt8], key keyForID: (UInt32) throws(VaultError) -> GroupKey,
        contents: (SyncEnvelope) -> String? = { _ in nil }
    ) -> Opened {
        // Written only into a refusal's reason: built when one is (a hex name per row was a
        // measurable part of a first sync).
        let subject = { "synced entry \(SyncNaming.recordName(name))" }
        guard name.count == 32 else {
            return .refused(VaultError(.malformed, "a row from the server has a \(name.count)-byte name; names are 32 bytes"))
        }
        guard sequence > 0 else {
            return .refused(VaultError(.malformed, "\(subject()): the server's row has sequence \(sequence); sequences start at 1"))
        }
        let envelope: SyncEnvelope
        do {
            envelope = try SyncEnvelope.open(blob, name: name, naming: naming, space: space, key: keyForID)
        } catch {
            return .refused(error)
        }
        guard envelope.sequence == UInt64(sequence) else {
            return .refused(VaultError(.malformed, "\(subject()): the server's row says sequence \(sequence) but the sealed entry says \(envelope.sequence); the row was edited on the server"))
        }
        if let reason = contents(envelope) {
            let error = VaultError(.invalidRecord, "\(subject()) is authentic but \(reason); the key is shown as absent")
            return .unreadable(envelope, reason: error)
        }
        return .opened(envelope)
    }

    /// Judges the row against what this machine has seen of the entry (`seen`, 0 if nothing,
    /// and the digest of the blob seen at that sequence).
    ///
    /// In order: ``open(naming:space:key:)``'s checks; then freshness, as the Vault's trust
    /// ledger judges a record: below `seen` → `rollback`; equal with another digest →
    /// `conflictingContent`; equal with the same digest → ``Verdict/duplicate``; more than
    /// ``sequenceWindow`` above → `untrustedSequence`; otherwise accepted.
    package func judge(
        seen: UInt64, seenDigest: [UInt8]?, naming: SyncNaming, space: [UInt8],
        key keyForID: (UInt32) throws(VaultError) -> GroupKey, contents: (SyncEnvelope) -> String? = { _ in nil }
    ) -> Verdict {
        judge(open(naming: naming, space: space, key: keyForID, contents: contents), seen: seen, seenDigest: seenDigest)
    }

    /// ``judge(seen:seenDigest:naming:space:key:)`` of a row already opened: `opened` must be
    /// this row's ``open(naming:space:key:)``. The digests, the seen blob's (`seenDigest`) and
    /// this row's blob's, are made only when the row is at `seen`: a machine keeps the blob it
    /// accepted rather than its digest, and hashing every row's blob when opening it was a
    /// twentieth of opening a first sync's rows, for a comparison rows at another sequence
    /// never make.
    package func judge(_ opened: Opened, seen: UInt64, seenDigest: @autoclosure () -> [UInt8]?) -> Verdict {
        let envelope: SyncEnvelope
        var unreadable: VaultError?
        switch opened {
        case .refused(let error): return .refuse(error)
        case .opened(let opened): envelope = opened
        case .unreadable(let opened, let reason): (envelope, unreadable) = (opened, reason)
        }
        let subject = { "synced entry \(SyncNaming.recordName(name))" }
        let rowSequence = UInt64(sequence)
        if rowSequence < seen {
            return .refuse(VaultError(.rollback, "\(subject()): the server serves sequence \(rowSequence), but this machine has seen sequence \(seen); the server was rolled back, or replays an old value; it was not used"))
        }
        if rowSequence == seen {
            if let seenDigest = seenDigest(), seenDigest == Digest.blake2b256(blob) { return .duplicate }
            return .refuse(VaultError(.conflictingContent, "\(subject()): the server serves other content at sequence \(seen) than this machine saw there; two histories were shown; it was not used"))
        }
        if rowSequence - seen > Self.sequenceWindow {
            return .refuse(VaultError(.untrustedSequence, "\(subject()): sequence \(rowSequence) is more than 2^32 above the \(seen) this machine has seen; it was not used"))
        }
        if let unreadable { return .acceptAsAbsent(envelope, reason: unreadable) }
        return .accept(envelope)
    }
}
