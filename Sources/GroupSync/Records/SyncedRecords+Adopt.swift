#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Vault
import GroupSyncCore

extension SyncedRecords {
    /// Opts the group's Vault record `name` into sync: reads it as a Vault read does, refused
    /// for every reason a read is (tampered, rolled back, expired, of a schema `Record` does not
    /// read, ...), and writes it here under the same name, as ``write(_:to:)`` does.
    ///
    /// The Vault's record is left as it is and no longer changes with the synced one: read and
    /// write the record here from then on, and delete the Vault's copy once nothing reads it
    /// there. Refused, with nothing written, for a record with an expiry (synced records do not
    /// expire, and a value meant to lapse would be kept everywhere) and for a name already
    /// synced (the synced record, perhaps another machine's, is the newer).
    ///
    /// ```swift
    /// try records.adopt(AuthState.self, from: vault, name: "auth-state")
    /// ```
    ///
    /// - Throws: `SyncError.Code.invalidArgument` for a vault of another group, a record that
    ///   is absent, deleted, has an expiry or is synced already; `SyncError.Code.refused` with
    ///   the Vault's refusal (`SyncError.refusal`); `SyncError.Code.storage` and
    ///   `SyncError.Code.keyring` for failures reading it.
    public func adopt<Record: VaultRecord>(_ type: Record.Type, from vault: Vault, name: String) throws(SyncError) {
        try write(try readForAdoption(type, from: vault, name: name).value, to: name)
    }

    /// ``adopt(_:from:name:)`` for a record of any type, its payload copied as the Vault holds
    /// it (`vaultcli sync records adopt`); returns its schema version and payload size.
    package func adoptPayload(from vault: Vault, name: String) throws(SyncError) -> (schemaVersion: UInt32, payloadBytes: Int) {
        let (record, header) = try readForAdoption(OpaquePayload.self, from: vault, name: name)
        try writePayload(Array(record.bytes), schemaVersion: header.schemaVersion, to: name)
        return (header.schemaVersion, record.bytes.count)
    }

    /// The record `name` of `vault` and its authenticated header, read and judged for adoption.
    private func readForAdoption<Record: VaultRecord>(
        _ type: Record.Type, from vault: Vault, name: String
    ) throws(SyncError) -> (value: Record, header: RecordHeader) {
        guard vault.group == group else {
            throw SyncError(.invalidArgument, "the vault is group \(vault.group)'s, and these are group \(group)'s synced records: adopt a record from the vault of the same group")
        }
        guard replica.value(forKey: name) == nil else {
            throw SyncError(.invalidArgument, "record \(name) is synced already, and the synced record is the newer: read it from the synced records instead")
        }
        let found: (value: Record, header: RecordHeader)
        do {
            found = try vault.readWithHeader(type, from: name)
        } catch {
            throw Self.adoptionError(error, name: name)
        }
        if let expiry = found.header.expiresAt {
            throw SyncError(.invalidArgument, "record \(name) expires (at \(expiry.timeIntervalSince1970) s since 1970), and synced records do not: it would be kept after it lapses; write it here without an expiry if it may be")
        }
        return found
    }

    /// A Vault read's failure as an adoption's: its verdicts as refusals in its own words.
    private static func adoptionError(_ error: VaultError, name: String) -> SyncError {
        let reason = "record \(name) of the vault cannot be adopted: \(error.reason)"
        switch error.code {
        case .notFound, .deleted, .invalidName, .invalidArgument:
            return SyncError(.invalidArgument, reason, underlyingError: error)
        case .storage, .notDurable:
            return SyncError(.storage, reason, underlyingError: error)
        case .keyring:
            return SyncError(.keyring, reason, underlyingError: error)
        case .missingEntitlement:
            return SyncError(.missingEntitlement, reason, underlyingError: error)
        default:
            return SyncError(.refused, reason, refusal: error.code, underlyingError: error)
        }
    }
}
