import Keyring
import SealedStorage

/// The highest trusted sequence number and blob digest of every record of one group, kept in
/// the group's keyring (a ``SealedDocument`` of kind `vault-ledger`), not in the container.
///
/// Why there: anyone who can write the group container can put an old, validly sealed blob
/// back. A ledger beside it could be put back just as easily. The keyring directory is
/// outside the container and the document is sealed under a key derived from the keyring's
/// master secret, so without the keyring a container-only attacker can neither forge an entry
/// nor replace it with an older one that verifies (see docs/FORMAT.md, "Trust ledger").
///
/// Writers record each sequence they publish; readers raise the entry when they accept a
/// newer authentic record (a writer may have died between publishing and recording). Entries
/// only ever go up.
package struct TrustLedger: Sendable {
    /// What is trusted about one record.
    package struct Entry: Codable, Sendable, Equatable {
        /// The highest sequence accepted for the record.
        package var sequence: UInt64
        /// Lowercase hex BLAKE2b-256 of the whole blob that carried ``sequence``.
        package var digest: String

        package init(sequence: UInt64, digest: String) {
            self.sequence = sequence
            self.digest = digest
        }
    }

    /// The sealed document's content: one entry per record name.
    package struct Content: Codable, Sendable, Equatable {
        package var records: [String: Entry]

        package init(records: [String: Entry] = [:]) {
            self.records = records
        }
    }

    /// The ``SealedDocument`` kind, also its file stem: `<keychain of group>/vault-ledger.sealed`.
    package static let kind = "vault-ledger"

    /// The sealed document holding the ledger.
    package let document: SealedDocument<Content>

    package init(home: KeyringHome, group: GroupIdentifier) {
        document = SealedDocument(home: home, group: group, kind: Self.kind)
    }

    /// The digest the ledger keeps for `blob`.
    package static func digest(of blob: [UInt8]) -> String {
        Hex.lowercase(Digest.blake2b256(blob))
    }

    /// The trusted entry for `name`, or `nil` if nothing was ever trusted for it. Takes no lock.
    package func entry(for name: RecordName) throws(VaultError) -> Entry? {
        do {
            return try document.read()?.records[name.rawValue]
        } catch {
            throw VaultError(keyring: error, while: "read the trust ledger of \(document.group)")
        }
    }

    /// Checks an authentic blob's sequence against the ledger, and raises the ledger when the
    /// blob is newer. Lock-free when nothing changes (the common case for a reader).
    ///
    /// - Throws: ``VaultError/Code/rollback`` when the sequence is below the trusted one,
    ///   ``VaultError/Code/conflictingContent`` when it equals it with another digest.
    package func admit(_ name: RecordName, sequence: UInt64, digest: String, subject: String) throws(VaultError) {
        if let trusted = try entry(for: name) {
            try Self.compare(sequence: sequence, digest: digest, with: trusted, subject: subject)
            if sequence == trusted.sequence { return }
        }
        // Newer than anything trusted: raise the entry under the ledger's lock.
        let conflict: Entry?
        do {
            conflict = try document.update { (content: inout Content?) throws(KeyringError) -> Entry? in
                var ledger = content ?? Content()
                if let trusted = ledger.records[name.rawValue] {
                    // Equal sequence: another reader raised it first; a different digest is a conflict.
                    if trusted.sequence == sequence { return trusted.digest == digest ? nil : trusted }
                    // Higher: a newer record was accepted while this one was being read. The blob
                    // was current when read, so it is returned; the ledger is never lowered.
                    if trusted.sequence > sequence { return nil }
                }
                ledger.records[name.rawValue] = Entry(sequence: sequence, digest: digest)
                content = ledger
                return nil
            }
        } catch {
            throw VaultError(keyring: error, while: "raise the trust ledger of \(document.group)")
        }
        if let conflict {
            try Self.compare(sequence: sequence, digest: digest, with: conflict, subject: subject)
        }
    }

    /// Records that the writer, holding the record's writer lock, published `sequence`.
    package func record(_ name: RecordName, sequence: UInt64, digest: String, durability: Durability) throws(VaultError) {
        do {
            try document.update(durability: durability) { (content: inout Content?) throws(KeyringError) in
                var ledger = content ?? Content()
                if let trusted = ledger.records[name.rawValue], trusted.sequence >= sequence { return }
                ledger.records[name.rawValue] = Entry(sequence: sequence, digest: digest)
                content = ledger
            }
        } catch {
            throw VaultError(keyring: error, while: "record sequence \(sequence) of \"\(name)\" in the trust ledger of \(document.group) (the record itself was written; readers will raise the ledger when they read it)")
        }
    }

    private static func compare(sequence: UInt64, digest: String, with trusted: Entry, subject: String) throws(VaultError) {
        if sequence < trusted.sequence {
            throw VaultError(.rollback, "\(subject) has sequence \(sequence), lower than the trusted \(trusted.sequence): an older copy was put back; it was not used (write the record again to replace it)")
        }
        if sequence == trusted.sequence && digest != trusted.digest {
            throw VaultError(.conflictingContent, "\(subject) has the trusted sequence \(sequence) but different content: two blobs claim the same version; it was not used (write the record again to replace it)")
        }
    }
}
