import CSQLite
import SealedStorage

/// One object of a database's schema as SQLite records it in `sqlite_schema`, without its root
/// page (which differs between files).
///
/// What a definition is required to make is derived from its statements' text
/// (``recorded(by:)``), without SQLite: SQLite records a `CREATE TABLE` or `CREATE INDEX`
/// statement as `CREATE TABLE ` or `CREATE [UNIQUE ]INDEX ` followed by the statement's own text
/// from the object's name to its end, so a statement already written that way is recorded as
/// it is. Parsing the definition in a private in-memory database instead cost every new
/// process about 2.6 million instructions (callgrind), the largest part of what issue 23's
/// checks had added to a cold read (docs/ARCHITECTURE.md, "The expected schema is derived from
/// the definition's text"). ``recordedBySQLite(_:)`` is that reference, which tests and debug
/// builds compare the derivation with.
struct SchemaObject: Equatable, Sendable {
    let type: String
    let name: String
    let table: String
    let sql: String?

    /// Every object of the file, in no particular order: lists are compared after ``sorted(_:)``.
    static let query = "SELECT type, name, tbl_name, sql FROM sqlite_schema"
    /// The objects of one table (`tbl_name` bound).
    static let tableQuery = "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE tbl_name = ?"

    init(type: String, name: String, table: String, sql: String?) {
        self.type = type
        self.name = name
        self.table = table
        self.sql = sql
    }

    init(_ row: SQLiteConnection.RowReader) {
        type = row.text(0)
        name = row.text(1)
        table = row.text(2)
        sql = row.isNull(3) ? nil : row.text(3)
    }

    /// The object as a person reads it in a refusal; every part came from the file.
    var printed: String {
        "\(UntrustedText.printable(type, limit: 20)) \"\(UntrustedText.printable(name, limit: 80))\" on \"\(UntrustedText.printable(table, limit: 80))\" (\(UntrustedText.printable(sql ?? "no SQL", limit: 200)))"
    }

    /// `objects` in one order, by type and then name, byte-wise, so two lists of the same
    /// objects compare equal. An array, not a `Set`: a set of this type would make a new process
    /// search every protocol conformance of every loaded library for `Hashable` when it is first
    /// created (`swift_conformsToProtocol`), a few hundred thousand instructions of a cold read.
    static func sorted(_ objects: [SchemaObject]) -> [SchemaObject] {
        objects.sorted { lhs, rhs in
            lhs.type == rhs.type
                ? lhs.name.utf8.lexicographicallyPrecedes(rhs.name.utf8)
                : lhs.type.utf8.lexicographicallyPrecedes(rhs.type.utf8)
        }
    }

    // MARK: What a definition makes

    /// The objects SQLite records for `statements`, derived from their text.
    ///
    /// Each statement is one `CREATE TABLE name ...` or `CREATE [UNIQUE] INDEX name ON table ...`,
    /// written as SQLite records it: those keywords in capitals, one space between them, no
    /// `IF NOT EXISTS` and no `TEMP`, nothing before `CREATE`, no semicolon; and the definition
    /// makes no object SQLite names itself (an index SQLite adds for a `UNIQUE` constraint, or
    /// for a `PRIMARY KEY` of a table with row ids other than `INTEGER PRIMARY KEY`: write the
    /// table `WITHOUT ROWID`, or the index as a statement of its own). A statement of another
    /// form is a programming error of the definition, and so is a derivation that differs from
    /// what SQLite records (checked in debug builds, and by the tests of each definition).
    static func recorded(by statements: [String]) -> [SchemaObject] {
        let objects = derived(from: statements)
        assert(objects == recordedBySQLite(statements),
               "SQLite records these statements differently from how they are written: \(statements)")
        return objects
    }

    /// ``recorded(by:)`` without the check against SQLite.
    static func derived(from statements: [String]) -> [SchemaObject] {
        sorted(statements.map(object(recordedBy:)))
    }

    /// The object `statement` makes.
    private static func object(recordedBy statement: String) -> SchemaObject {
        var words = statement.split(separator: " ", maxSplits: 6, omittingEmptySubsequences: false).makeIterator()
        func next() -> String? { words.next().map(String.init) }
        guard next() == "CREATE" else { preconditionFailure("not a CREATE statement as SQLite records it: \(statement)") }
        var kind = next()
        if kind == "UNIQUE" { kind = next() == "INDEX" ? "INDEX" : nil }
        switch kind {
        case "TABLE":
            let name = identifier(next(), in: statement)
            return SchemaObject(type: "table", name: name, table: name, sql: statement)
        case "INDEX":
            let name = identifier(next(), in: statement)
            guard next() == "ON" else { preconditionFailure("an index without ON after its name: \(statement)") }
            return SchemaObject(type: "index", name: name, table: identifier(next(), in: statement), sql: statement)
        default:
            preconditionFailure("only CREATE TABLE and CREATE [UNIQUE] INDEX, as SQLite records them: \(statement)")
        }
    }

    /// `word`, required to be a plain identifier (letters, digits, `_`): a quoted name, a
    /// schema prefix or `IF NOT EXISTS` would be recorded differently.
    private static func identifier(_ word: String?, in statement: String) -> String {
        guard let word, let first = word.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
              word.utf8.allSatisfy({ byte in
                  (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                      || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
              }), word != "IF"
        else { preconditionFailure("a name is not a plain identifier followed by a space in: \(statement)") }
        return word
    }

    /// What SQLite itself records for `statements`, run in a private in-memory database: the
    /// reference ``recorded(by:)`` is checked against.
    static func recordedBySQLite(_ statements: [String]) -> [SchemaObject] {
        do {
            let reference = try SQLiteConnection(inMemory: ())
            for statement in statements { try reference.execute(statement) }
            return sorted(try reference.query(query) { SchemaObject($0) })
        } catch {
            preconditionFailure("a schema definition does not compile: \(error)")
        }
    }
}
