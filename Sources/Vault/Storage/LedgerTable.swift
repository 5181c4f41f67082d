import Keyring
import SealedStorage

/// The Vault's trust ledger as rows of the keyring database: one row per (group, record),
/// point-looked-up through its primary key, so reading or writing one record's entry costs the
/// same whatever the number of records.
///
/// A row holds the confirmed sequence and digest (the newest version known to be published)
/// and, while a write is in flight, the pending sequence and digest that writer announced
/// before publishing (docs/FORMAT.md, "Trust ledger"). Each row carries a keyed BLAKE2b tag
/// over all of that and its identity, with a key derived from the master secret: someone who
/// can write the database file but lacks the master secret cannot forge or alter a row, nor
/// move one to another record; they can delete rows or put back older ones (SECURITY.md).
///
/// The rules (what readers accept, what writers record) belong to the Vault; this type only
/// stores rows, authenticates them and runs each change in one transaction.
///
/// The table lives in the keyring's database, so that a ledger commit is as durable and as
/// guarded as the keyring's own, but it is the Vault's: the keyring knows it only as an
/// ``ExtensionTable`` this type adopts before its first statement in each process, which
/// creates it in a home whose database was made by a process that never used the Vault.
package struct LedgerTable: Sendable {
    /// The table's definition. Its text is what earlier versions created as part of the
    /// keyring's own schema, whitespace included, so that their databases need no conversion.
    package static let definition = ExtensionTable(name: "ledger", version: 1, createStatements: [
        """
        CREATE TABLE ledger (
            access_group TEXT NOT NULL,
            record TEXT NOT NULL,
            confirmed INTEGER NOT NULL,
            confirmed_digest TEXT NOT NULL,
            pending INTEGER,
            pending_digest TEXT,
            tag BLOB NOT NULL,
            PRIMARY KEY (access_group, record)
        ) WITHOUT ROWID
        """,
    ])


    /// One record's row.
    package struct Row: Sendable, Equatable {
        /// The highest sequence known to be published; 0 before the first confirmation.
        package var confirmed: UInt64
        /// Lowercase hex BLAKE2b-256 of the blob that carried ``confirmed`` ("" for 0).
        package var confirmedDigest: String
        /// The sequence a writer announced and may have published, or `nil`.
        package var pending: UInt64?
        /// The digest of the blob announced with ``pending``.
        package var pendingDigest: String?

        package init(confirmed: UInt64, confirmedDigest: String, pending: UInt64? = nil, pendingDigest: String? = nil) {
            self.confirmed = confirmed
            self.confirmedDigest = confirmedDigest
            self.pending = pending
            self.pendingDigest = pendingDigest
        }
    }

    package let database: KeyringDatabase
    package let group: GroupIdentifier
    /// Tags rows (keyed BLAKE2b): derived from the master secret, `GVKEYRNG` id 4 (docs/FORMAT.md).
    private let tagKey: SymmetricKey
    private static let tagKeyID: UInt64 = 4

    /// The ledger rows of `group` in `home`'s database.
    package init(home: KeyringHome, group: GroupIdentifier) throws(KeyringError) {
        try self.init(database: KeyringDatabase.shared(for: home), group: group)
    }

    /// The ledger rows of `group` in `database`, already opened for this operation.
    ///
    /// - Throws: what ``KeyringDatabase/adopt(_:)`` throws on the first use of `database` in
    ///   this process: the table altered, or of a newer version, or not creatable.
    package init(database: KeyringDatabase, group: GroupIdentifier) throws(KeyringError) {
        try database.adopt(Self.definition)
        self.database = database
        self.group = group
        tagKey = database.derivedKey(id: Self.tagKeyID)
    }

    /// The row of `record`, or `nil`. One indexed lookup, no transaction.
    /// - Throws: ``KeyringStatus/decode`` when the row's tag does not verify.
    package func row(_ record: String) throws(KeyringError) -> Row? {
        try database.read("read the trust ledger of \(group)") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> Row? in
            try fetch(record, in: transaction)
        }
    }

    /// Reads the row of `record` inside a write transaction, lets `body` change it (`nil`
    /// deletes it), writes it back if it changed, and commits, durably unless `durability`
    /// defers the flush. `fault` names the test seam checked just before the commit.
    package func update<Result>(
        _ record: String,
        durability: KeyringDatabase.CommitDurability = .flushed,
        fault: FaultPoint? = nil,
        _ body: (inout Row?) -> Result
    ) throws(KeyringError) -> Result {
        try database.write("update the trust ledger of \(group)", changesCachedState: false, durability: durability) { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> Result in
            let original = try fetch(record, in: transaction)
            var row = original
            let result = body(&row)
            if row != original { try store(record, row, in: transaction) }
            if let fault { try transaction.checkFault(fault) }
            return result
        }
    }

    /// ``update(_:durability:fault:_:)`` for several records in ONE write transaction (one
    /// commit): `body` is called once per record, in order, with its row as it is now.
    /// Returns the results in the same order.
    package func updateAll<Result>(
        _ records: [String],
        durability: KeyringDatabase.CommitDurability = .flushed,
        fault: FaultPoint? = nil,
        _ body: (_ index: Int, inout Row?) -> Result
    ) throws(KeyringError) -> [Result] {
        try database.write("update the trust ledger of \(group)", changesCachedState: false, durability: durability) { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> [Result] in
            var results: [Result] = []
            results.reserveCapacity(records.count)
            for (index, record) in records.enumerated() {
                let original = try fetch(record, in: transaction)
                var row = original
                results.append(body(index, &row))
                if row != original { try store(record, row, in: transaction) }
            }
            if let fault { try transaction.checkFault(fault) }
            return results
        }
    }

    private func store(_ record: String, _ row: Row?, in transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) {
        if let row {
            try transaction.apply(
                """
                INSERT INTO ledger (access_group, record, confirmed, confirmed_digest, pending, pending_digest, tag)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (access_group, record) DO UPDATE SET
                    confirmed = excluded.confirmed, confirmed_digest = excluded.confirmed_digest,
                    pending = excluded.pending, pending_digest = excluded.pending_digest, tag = excluded.tag
                """,
                [
                    .text(group.rawValue), .text(record),
                    .integer(Int64(bitPattern: row.confirmed)), .text(row.confirmedDigest),
                    row.pending.map { .integer(Int64(bitPattern: $0)) } ?? .null,
                    row.pendingDigest.map { .text($0) } ?? .null,
                    .blob(tag(record, row)),
                ], expecting: .exactly(1))
        } else {
            // At most the one row: absent already is the state asked for.
            let removed = try transaction.run("DELETE FROM ledger WHERE access_group = ? AND record = ?", [.text(group.rawValue), .text(record)])
            guard removed <= 1, try fetch(record, in: transaction) == nil else {
                throw KeyringError(.decode, "remove the trust ledger row of \(record) in \(group): the row is still in keyring database \(database.path) after its delete; nothing was committed: the database does not behave as its schema says, so restore it from a backup")
            }
        }
    }

    /// Deletes every row of the group: the ledger forgets what it trusted (as if lost).
    package func removeAll() throws(KeyringError) {
        try database.write("clear the trust ledger of \(group)", changesCachedState: false) { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) in
            try transaction.apply("DELETE FROM ledger WHERE access_group = ?", [.text(group.rawValue)], expecting: .anyNumber)
        }
    }

    /// Every record name with a row, sorted.
    package func records() throws(KeyringError) -> [String] {
        try database.read("list the trust ledger of \(group)") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> [String] in
            try transaction.query("SELECT record FROM ledger WHERE access_group = ? ORDER BY record", [.text(group.rawValue)]) { $0.text(0) }
        }
    }

    /// Every row of the group, by record name, in one query (for a pass over the whole group,
    /// such as a verification, instead of one lookup per record).
    /// - Throws: ``KeyringStatus/decode`` when a row's tag does not verify.
    package func allRows() throws(KeyringError) -> [String: Row] {
        var result: [String: Row] = [:]
        for stored in try storedRows() {
            guard stored.isAuthentic else { throw authenticationFailure(stored.record) }
            result[stored.record] = stored.row
        }
        return result
    }

    /// One row as the table holds it: its fields, its stored tag, and whether that tag
    /// verifies.
    package struct StoredRow: Sendable, Equatable {
        package var record: String
        package var row: Row
        package var tag: [UInt8]
        package var isAuthentic: Bool
    }

    /// Every row of the group as stored, sorted by record name, rows that fail authentication
    /// included and marked: what an outsider checks the ledger against (`vaultcli records
    /// ledger`), where one altered row must not hide the others.
    package func storedRows() throws(KeyringError) -> [StoredRow] {
        let rows = try database.read("read the trust ledger of \(group)") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> [(String, Row, [UInt8])] in
            try transaction.query(
                "SELECT record, confirmed, confirmed_digest, pending, pending_digest, tag FROM ledger WHERE access_group = ? ORDER BY record",
                [.text(group.rawValue)]
            ) { reader in
                let (row, tag) = Self.row(reader, from: 1)
                return (reader.text(0), row, tag)
            }
        }
        return rows.map { record, row, stored in
            StoredRow(record: record, row: row, tag: stored, isAuthentic: tagVerifies(stored, record, row))
        }
    }

    /// Imports rows from a ledger of the sealed-JSON layout in one transaction, once per group:
    /// `entries` is read only when the group has not been imported yet. Existing rows are kept
    /// where they are ahead. Returns whether an import ran.
    @discardableResult
    package func importOnce(_ entries: () throws(KeyringError) -> [String: (sequence: UInt64, digest: String)]) throws(KeyringError) -> Bool {
        let marker: [SQLiteConnection.Value] = [.text(group.rawValue), .text("vault-ledger")]
        let done = try database.read("check the trust ledger import of \(group)") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> Bool in
            try !transaction.query("SELECT 1 FROM imports WHERE access_group = ? AND kind = ?", marker) { _ in () }.isEmpty
        }
        guard !done else { return false }
        let legacy = try entries()
        return try database.write("import the trust ledger of \(group)", changesCachedState: false) { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> Bool in
            // Another process may have imported between the check and this transaction.
            guard try transaction.query("SELECT 1 FROM imports WHERE access_group = ? AND kind = ?", marker, { _ in () }).isEmpty else { return false }
            for (record, entry) in legacy {
                if let existing = try fetch(record, in: transaction), existing.confirmed >= entry.sequence { continue }
                let row = Row(confirmed: entry.sequence, confirmedDigest: entry.digest)
                try transaction.apply(
                    "INSERT OR REPLACE INTO ledger (access_group, record, confirmed, confirmed_digest, pending, pending_digest, tag) VALUES (?, ?, ?, ?, NULL, NULL, ?)",
                    [.text(group.rawValue), .text(record), .integer(Int64(bitPattern: row.confirmed)), .text(row.confirmedDigest), .blob(tag(record, row))],
                    expecting: .exactly(1))
            }
            try transaction.apply("INSERT INTO imports (access_group, kind) VALUES (?, ?)", marker, expecting: .exactly(1))
            return true
        }
    }

    private func fetch(_ record: String, in transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> Row? {
        let rows = try transaction.query(
            "SELECT confirmed, confirmed_digest, pending, pending_digest, tag FROM ledger WHERE access_group = ? AND record = ?",
            [.text(group.rawValue), .text(record)]
        ) { reader in Self.row(reader, from: 0) }
        guard let (row, stored) = rows.first else { return nil }
        try verifyTag(stored, record, row)
        return row
    }

    /// A row and its stored tag, from the columns `confirmed, confirmed_digest, pending,
    /// pending_digest, tag` that every ledger query selects, starting at column `first`.
    private static func row(_ reader: SQLiteConnection.RowReader, from first: Int32) -> (Row, [UInt8]) {
        (
            Row(
                confirmed: UInt64(bitPattern: reader.integer(first)),
                confirmedDigest: reader.text(first + 1),
                pending: reader.isNull(first + 2) ? nil : UInt64(bitPattern: reader.integer(first + 2)),
                pendingDigest: reader.isNull(first + 3) ? nil : reader.text(first + 3)),
            reader.blob(first + 4)
        )
    }

    private func verifyTag(_ stored: [UInt8], _ record: String, _ row: Row) throws(KeyringError) {
        guard tagVerifies(stored, record, row) else { throw authenticationFailure(record) }
    }

    /// Whether `stored` is the row's tag, compared in constant time (and, once verified, not
    /// hashed again for the same bytes: ``KeyringDatabase/verifies(tag:of:derivedKeyID:name:)``).
    private func tagVerifies(_ stored: [UInt8], _ record: String, _ row: Row) -> Bool {
        database.verifies(tag: stored, of: tagMessage(record, row), derivedKeyID: Self.tagKeyID, name: record)
    }

    private func authenticationFailure(_ record: String) -> KeyringError {
        KeyringError(.decode, "the trust ledger row of \"\(UntrustedText.printable(record))\" in \(group) fails authentication (keyring database \(database.path) was altered, or the row was copied from another record); it was not used: restore the database from a backup")
    }

    /// The row's tag: keyed BLAKE2b over its identity and every field, each length-prefixed.
    private func tag(_ record: String, _ row: Row) -> [UInt8] {
        Digest.keyedBLAKE2b256(tagMessage(record, row), key: tagKey)
    }

    /// What the row's tag is over.
    private func tagMessage(_ record: String, _ row: Row) -> [UInt8] {
        // One buffer, sized once, text appended through its contiguous UTF-8: every read
        // verifies a tag, and copying each field into an array of its own cost as much as the
        // hash.
        var message: [UInt8] = []
        message.reserveCapacity(256 + record.utf8.count)
        message.append(contentsOf: "GroupVault ledger row 1".utf8)
        func append(_ text: String) { message.appendLengthPrefixed(text) }
        func append(_ number: UInt64?) {
            message.append(number == nil ? 0 : 1)
            message.appendBigEndian(number ?? 0)
        }
        append(group.rawValue)
        append(record)
        append(row.confirmed)
        append(row.confirmedDigest)
        append(row.pending)
        append(row.pendingDigest ?? "")
        message.append(row.pendingDigest == nil ? 0 : 1)
        return message
    }
}
