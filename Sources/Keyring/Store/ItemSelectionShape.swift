import SealedStorage

extension ItemTable {
    /// Which conditions narrow an item `SELECT` (``ItemTable/selection(matching:in:hasher:)``).
    ///
    /// The statement's text depends on nothing else, so it is written once per shape and
    /// remembered for the process: building it on every lookup (a dozen appends and a join) was
    /// about 3% of a warm lookup's instructions.
    struct SelectionShape: OptionSet, Hashable, Sendable {
        let rawValue: UInt8

        /// `item_class = ?`: the query names a class (every query does).
        static let itemClass = SelectionShape(rawValue: 1 << 0)
        /// `reference_hash = ?`.
        static let reference = SelectionShape(rawValue: 1 << 1)
        /// `key_hash IN (?)`: one primary key.
        static let oneKey = SelectionShape(rawValue: 1 << 2)
        /// `key_hash IN (?, ?)`: a primary key either synchronizable or not.
        static let twoKeys = SelectionShape(rawValue: 1 << 3)
        /// `service_hash = ?`.
        static let service = SelectionShape(rawValue: 1 << 4)
        /// `account_hash = ?`.
        static let account = SelectionShape(rawValue: 1 << 5)
        /// `server_hash = ?`.
        static let server = SelectionShape(rawValue: 1 << 6)

        private static let written = Locked<[UInt8: String]>([:])

        /// The `SELECT` of this shape, its placeholders in the order the conditions are listed
        /// above, after the group's.
        var sql: String {
            if let sql = Self.written.withLock({ $0[rawValue] }) { return sql }
            let sql = write()
            Self.written.withLock { $0[rawValue] = sql }
            return sql
        }

        private func write() -> String {
            var sql = "SELECT id, item_class, key_hash, service_hash, account_hash, server_hash, reference_hash, sealed FROM items WHERE access_group = ?"
            if contains(.itemClass) { sql += " AND item_class = ?" }
            if contains(.reference) { sql += " AND reference_hash = ?" }
            // The primary key's hash implies the service's and the account's: comparing those
            // too would only offer SQLite their indexes as rival plans (it picks one of them
            // over a two-key IN on the unique index).
            if contains(.oneKey) { sql += " AND key_hash IN (?)" }
            if contains(.twoKeys) { sql += " AND key_hash IN (?, ?)" }
            if contains(.service) { sql += " AND service_hash = ?" }
            if contains(.account) { sql += " AND account_hash = ?" }
            if contains(.server) { sql += " AND server_hash = ?" }
            return sql + " ORDER BY id"
        }
    }
}
