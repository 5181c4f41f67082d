#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import SealedStorage
import Vault
import GroupSyncCore

/// The records a group opts into sync: `VaultRecord` values, sealed as the Vault seals them,
/// that a write on one machine makes readable on every other (docs/SYNC.md, sections 5 and 8).
///
/// They live in a space of their own on the server and in a state file of their own on each
/// machine, beside (not inside) the group's local Vault: a record is synced because it is
/// written here, or adopted from the Vault (``adopt(_:from:name:)``). Writes are local and
/// durable at once, and pushed by compare-and-swap; when another machine's write of the same
/// record reached the server first, that write wins and this machine's writer learns it
/// through ``conflicts()`` and ``SyncStatus/conflicts`` (never silently: the lost value is not
/// applied anywhere).
///
/// ```swift
/// let records = try SyncedRecords(group: GroupIdentifier(validating: "group.com.example.notes"), keyring: keyring)
/// records.start()
/// try records.write(AuthState(isAuthenticated: true), to: "auth-state")
/// let state = try records.read(AuthState.self, from: "auth-state")
/// ```
public final class SyncedRecords: Sendable {
    /// The group whose key seals the records.
    public let group: GroupIdentifier
    /// The configuration, when the records sync.
    public let configuration: SyncConfiguration?
    let replica: SyncReplica
    private let session: SyncSession?

    /// Opens the group's synced records; `configuration` defaults to `GROUPVAULT_SYNC_URL`.
    /// - Throws: `SyncError.Code.missingEntitlement` when the process is not entitled to the
    ///   group; `SyncError.Code.keyring`; `SyncError.Code.storage`; `SyncError.Code.configuration`.
    public init(group: GroupIdentifier, keyring: Keyring, configuration: SyncConfiguration?? = nil) throws(SyncError) {
        let server: SyncConfiguration?
        if let configuration { server = configuration } else { server = try SyncConfiguration.fromEnvironment() }
        let replica = try SyncReplica(group: group, store: "records", keyring: keyring, policy: .reportToWriter, contents: .records)
        self.group = group
        self.configuration = server
        self.replica = replica
        session = server.map { SyncSession(replica: replica, configuration: $0) }
    }

    /// Starts syncing in the background.
    public func start() { session?.start() }
    /// Stops syncing.
    public func stop() async { await session?.stop() }

    /// One exchange with the server now (pull, then push every pending write).
    public func synchronizeWithServer() async throws(SyncError) {
        try await OneShotExchange.run(replica, configuration: configuration, connectionID: 3) { server throws(SyncError) in
            try await SyncRound.run(replica, on: server)
        }
    }

    /// Reads every record the server holds for the group, whatever its change number, and
    /// compares each with the one this machine accepted, as
    /// ``UbiquitousKeyValueStore/verifyWithServer()`` does for the key-value store
    /// (docs/SYNC.md, section 6, "Verifying the server").
    public func verifyWithServer() async throws(SyncError) -> SyncVerification {
        try await OneShotExchange.run(replica, configuration: configuration, connectionID: 3) { server throws(SyncError) in
            try await VerificationRound.run(replica, on: server)
        }
    }

    /// Where the records stand.
    public var status: SyncStatus { SyncStatus(replica: replica, session: session, server: configuration?.url.redacted) }

    /// Records changed by other machines, and by other processes of this home.
    public func changes() -> AsyncStream<UbiquitousChange> { replica.changes() }

    /// This machine's writes that lost to another machine's write of the same record.
    public func conflicts() -> AsyncStream<SyncConflict> { replica.conflicts() }

    /// Writes `record` as `name` (a Vault record name): durable here at once, pushed by the session.
    /// - Throws: `SyncError.Code.invalidArgument` for an invalid name or a record that does not
    ///   validate or encode; `SyncError.Code.storage`; `SyncError.Code.keyring`.
    public func write<Record: VaultRecord>(_ record: Record, to name: String) throws(SyncError) {
        try Self.validate(name: name)
        do { try record.validate() } catch {
            throw SyncError(.invalidArgument, "record \(name) does not validate: \(error)", underlyingError: error)
        }
        let payload: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            payload = try encoder.encode(record)
        } catch {
            throw SyncError(.invalidArgument, "record \(name) cannot be encoded: \(error)", underlyingError: error)
        }
        try store(Array(payload), schemaVersion: Record.schemaVersion, as: name)
    }

    /// Writes a payload as `name` with its schema version, as ``write(_:to:)`` stores a record:
    /// the version's four bytes, big-endian, then the payload (docs/SYNC.md, section 5).
    /// For tools that handle records of any type (`vaultcli sync records write`); the caller
    /// vouches that the payload is what the record's readers decode.
    package func writePayload(_ payload: [UInt8], schemaVersion: UInt32, to name: String) throws(SyncError) {
        try Self.validate(name: name)
        try store(payload, schemaVersion: schemaVersion, as: name)
    }

    /// Writes the record's value, its name already validated.
    private func store(_ payload: [UInt8], schemaVersion: UInt32, as name: String) throws(SyncError) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4 + payload.count)
        withUnsafeBytes(of: schemaVersion.bigEndian) { bytes += $0 }
        bytes += payload
        try replica.write(key: name, value: bytes)
    }

    /// The record `name`, or `nil` when it was never written or was deleted. Never waits for the network.
    /// - Throws: `SyncError.Code.refused` with `unsupportedSchema` or `invalidRecord` (the Vault's codes).
    public func read<Record: VaultRecord>(_ type: Record.Type, from name: String) throws(SyncError) -> Record? {
        guard let (schema, payload) = try payload(of: name) else { return nil }
        guard Record.supportedSchemaVersions.contains(schema) else {
            throw SyncError(.refused, "record \(name) has schema \(schema); \(Record.self) reads \(Record.supportedSchemaVersions)", refusal: .unsupportedSchema)
        }
        do {
            let record = try Record.decode(schemaVersion: schema, from: Data(payload))
            try record.validate()
            return record
        } catch {
            throw SyncError(.refused, "record \(name) does not decode or validate as \(Record.self): \(error)", refusal: .invalidRecord, underlyingError: error)
        }
    }

    /// The record `name` as its schema version and payload, undecoded, or `nil` when it was
    /// never written or was deleted: what ``read(_:from:)`` decodes, for tools that handle
    /// records of any type (`vaultcli sync records show`).
    /// - Throws: `SyncError.Code.refused` with `invalidRecord` for a value shorter than its schema version.
    package func payload(of name: String) throws(SyncError) -> (schemaVersion: UInt32, payload: ArraySlice<UInt8>)? {
        try Self.validate(name: name)
        guard let bytes = replica.value(forKey: name) else { return nil }
        var reader = BigEndianReader(bytes)
        guard let schemaVersion = reader.integer(UInt32.self) else {
            throw SyncError(.refused, "record \(name) has no schema version", refusal: .invalidRecord)
        }
        return (schemaVersion, reader.remaining)
    }

    /// Deletes `name` everywhere.
    public func delete(_ name: String) throws(SyncError) {
        try Self.validate(name: name)
        try replica.write(key: name, value: nil)
    }

    /// The names of the records this machine holds.
    public func names() -> [String] { replica.values().keys.sorted() }

    private static func validate(name: String) throws(SyncError) {
        do { _ = try RecordName(validating: name) } catch {
            throw SyncError(.invalidArgument, error.reason, underlyingError: error)
        }
    }
}
