/// A table that a module above the keyring keeps in the keyring's database, so that its rows
/// commit in the same durable transactions, under the same locks and the same tamper checks, as
/// the keyring's own (the Vault's trust ledger is one).
///
/// The keyring does not know these tables: a module hands its definition to
/// ``KeyringDatabase/adopt(_:)`` before its first statement on the table, in every process that
/// uses it. Adoption creates the table in a database that lacks it (a home first opened by a
/// process that never linked the module) and otherwise requires the file's objects of that table
/// to be exactly what ``createStatements`` make, as the keyring requires of its own tables.
///
/// A process that has not adopted a table leaves it alone: a table and its indexes are inert to
/// a process that runs no statement on them, and the process that does use it checks it. A
/// trigger or a view is never accepted unless a definition this process adopted creates it,
/// whatever table it hangs on, because a trigger acts on statements that never name it.
package struct ExtensionTable: Sendable, Hashable {
    /// The table's name, which every object of ``createStatements`` belongs to.
    package let name: String
    /// The layout of the table. A database whose `meta` row `table.<name>` records a higher
    /// version was written by a newer module and is refused, never guessed at; a database
    /// without that row holds version 1 (it predates the row) or nothing.
    package let version: Int64
    /// The `CREATE TABLE` and `CREATE INDEX` statements of this table alone, one string each,
    /// without `IF NOT EXISTS` doubt: they run once, in the transaction that finds the table
    /// missing. Each is written as SQLite records it (``SchemaObject/recorded(by:)``: keywords
    /// in capitals, no semicolon, no index SQLite would add by itself), because the text is what
    /// a file's objects are compared with; so it must not change for the same ``version``,
    /// whitespace included.
    package let createStatements: [String]

    /// A table named `name` at `version`, made by `createStatements`.
    package init(name: String, version: Int64, createStatements: [String]) {
        self.name = name
        self.version = version
        self.createStatements = createStatements
    }

    /// Whether SQLite records ``createStatements`` exactly as they are written, which the
    /// keyring requires: what the tests of the module that defines the table assert (debug
    /// builds also check it when the table is adopted).
    package var isWrittenAsSQLiteRecordsIt: Bool {
        SchemaObject.derived(from: createStatements) == SchemaObject.recordedBySQLite(createStatements)
    }

    /// The `meta` row that records the table's version.
    var versionRow: String { "table.\(name)" }
}
