#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage

/// The keychain items of every access group as rows of the keyring database: one row per item,
/// its attributes and secret sealed in the row, found through keyed hashes of the attributes
/// Apple matches on, so finding, adding or changing one item costs the same whatever the number
/// of items in its group.
///
/// A row (docs/STORAGE.md, "Items"):
///
/// ```
/// id             insertion order (an item keeps it when updated in place; a moved item gets a new one)
/// access_group   the group, in the clear (the entitlement check needs it; it is not secret)
/// item_class     genp | inet | keys | cert
/// key_hash       keyed BLAKE2b of the primary key (unique per group)
/// service_hash, account_hash, server_hash, reference_hash
///                keyed BLAKE2b of one attribute each, indexed
/// sealed         format | nonce (24 bytes) | XChaCha20-Poly1305 of the item's body (attributes and secret:
///                ItemRowBinary, or JSON in rows written before it and for keys and certificates)
/// additional data = "GVIT" | format | group | class | every hash above, each length-prefixed
/// ```
///
/// Format 1 is sealed under a key derived from the master secret. Format 2, used only in
/// passphrase mode (Keys/MasterKeyWrapping.swift) and only for the classes usable solely while
/// unlocked (`WhenUnlocked`, `WhenUnlockedThisDeviceOnly`, `WhenPasscodeSetThisDeviceOnly`), is
/// sealed under a key derived from the unlock key, which is on the machine in the clear only
/// between `unlock` and `lock`: while locked such a row cannot be opened at all, and any
/// operation that would have to open one is refused as ``KeyringStatus/interactionNotAllowed``
/// (its attributes are sealed too, so whether it matches cannot be known; the uniform
/// lock-state rule of Items/Keyring+Items.swift refuses such a match anyway), except that a query
/// naming another accessibility class passes over it, since it cannot be of that class.
///
/// The hashes are keyed with a key derived from the master secret and include the group, so
/// they reveal neither the attributes nor whether two groups hold an item with the same one.
/// Every column but `id` is in the additional data: a row moved to another group, given
/// another row's hashes or altered in any byte fails authentication and is refused as
/// ``KeyringStatus/decode``, never used.
///
/// Queries that give a service, account, server or persistent reference (compared byte for
/// byte) are answered from an index; others (case-insensitive ones, or ones giving only a
/// label, say) open every row of the searched groups' class.
struct ItemTable: Sendable {
    /// A stored item and its row.
    struct Row: Sendable {
        let id: Int64
        let item: KeychainItem
    }

    /// What a change does to one matched row.
    enum Change: Sendable {
        /// The row now holds this item; if its group differs, the item moves there (a new row).
        case replace(Row, with: KeychainItem)
        /// The row is deleted.
        case delete(Row)
    }

    /// Rows sealed under the master secret.
    static let masterSecretFormat = SealedBox.Format(version: 1)
    /// Rows sealed under the unlock key (passphrase mode, `WhenUnlocked` classes).
    private static let unlockKeyFormat = SealedBox.Format(version: 2)
    /// Either: a row says which by its first byte.
    private static let rowFormats = [masterSecretFormat, unlockKeyFormat]

    let database: KeyringDatabase

    let home: KeyringHome

    /// How this operation seals and opens rows of the `WhenUnlocked` classes: read once per
    /// operation, since another process may lock or unlock between two.
    let whenUnlocked: KeyringHome.WhenUnlockedSealing

    /// Whether the home was in passphrase mode when this operation began.
    let passphraseMode: Bool

    /// `Keychains/` as this operation checked it, with its look at the home's directories.
    private let keychains: KeyringHome.CheckedKeychains

    init(home: KeyringHome) throws(KeyringError) {
        let keychains = try home.checkedKeychains()
        (database, passphraseMode) = try home.database(inPassphraseMode: nil, keychains)
        self.home = home
        self.keychains = keychains
        // Without a passphrase there is no unlock key to look for: one lstat fewer per operation.
        whenUnlocked = passphraseMode ? try home.whenUnlockedSealing() : .masterSecret
    }

    /// The home's lock state now, knowing already whether it is in passphrase mode.
    func lockState() throws(KeyringError) -> DeviceLockState {
        try home.lockState(inPassphraseMode: passphraseMode, keychains)
    }

    // MARK: Import of the sealed-JSON layout

    /// Imports the items of every group of `groups` that still has an `items.sealed` of the
    /// sealed-JSON layout and was not imported yet: each group in one transaction, which also
    /// records the import, so it runs once. The old file is kept (it is never written again).
    ///
    /// - Throws: ``KeyringStatus/decode`` for an old file that is damaged or inconsistent
    ///   (nothing of that group is imported; the file stays for recovery).
    func importLegacyItems(of groups: [GroupIdentifier]) throws(KeyringError) {
        for group in groups where !database.itemImportsChecked.withLock({ $0.contains(group) }) {
            let marker: [SQLiteConnection.Value] = [.text(group.rawValue), .text("items")]
            let done = try database.read("check the item import of \(group)") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> Bool in
                try !transaction.query("SELECT 1 FROM imports WHERE access_group = ? AND kind = ?", marker) { _ in () }.isEmpty
            }
            if !done, let legacy = try SealedDocument<StoredItems>(home: home, group: group, kind: "items").read() {
                let items = try Self.validated(legacy, of: group, home: home)
                try database.write("import the items of \(group)") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) in
                    // Another process may have imported between the check and this transaction.
                    guard try transaction.query("SELECT 1 FROM imports WHERE access_group = ? AND kind = ?", marker, { _ in () }).isEmpty else { return }
                    for item in items {
                        let hashes = Hashes(item, in: group, key: database.itemLookupKey)
                        guard try rowID(withKey: hashes.key, in: group, transaction) == nil else { continue }
                        try insert(item, hashes: hashes, in: group, transaction)
                    }
                    try transaction.apply("INSERT INTO imports (access_group, kind) VALUES (?, ?)", marker, expecting: .exactly(1))
                }
            }
            database.itemImportsChecked.withLock { _ = $0.insert(group) }
        }
    }

    /// The old file's content, checked as the sealed-JSON code checked it: its layout version,
    /// every item in this group, unique persistent references and primary keys.
    private static func validated(_ stored: StoredItems, of group: GroupIdentifier, home: KeyringHome) throws(KeyringError) -> [KeychainItem] {
        func refuse(_ detail: String) -> KeyringError {
            KeyringError(.decode, "items file \(home.keychainDirectory(for: group).appending("items.sealed")) \(detail); it was not imported and will not be overwritten: restore it from a backup or move it away to start over")
        }
        guard stored.version == StoredItems.currentVersion else {
            throw refuse("has item layout version \(stored.version); this GroupVault reads version \(StoredItems.currentVersion)")
        }
        var keys = Set<ItemPrimaryKey>()
        var references = Set<Data>()
        for item in stored.items {
            guard item.accessGroup == group else { throw refuse("holds an item of access group \(item.accessGroup?.rawValue ?? "none")") }
            guard let reference = item.persistentReference, references.insert(reference).inserted else {
                throw refuse("holds an item without a unique persistent reference")
            }
            guard keys.insert(item.primaryKey).inserted else { throw refuse("holds two items with one primary key (\(item.primaryKey))") }
        }
        return stored.items
    }

    // MARK: Operations

    /// Inserts `item` (its access group set) in one durable transaction.
    /// - Throws: ``KeyringStatus/duplicateItem`` when its group holds an item with its primary key.
    func add(_ item: KeychainItem, to group: GroupIdentifier, operation: String) throws(KeyringError) {
        try importLegacyItems(of: [group])
        try database.write(operation) { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) in
            let hashes = Hashes(item, in: group, key: database.itemLookupKey)
            guard try rowID(withKey: hashes.key, in: group, transaction) == nil else {
                throw KeyringError(.duplicateItem, "\(operation): an item with the same primary key exists (\(item.primaryKey)); update it, or delete it first")
            }
            try insert(item, hashes: hashes, in: group, transaction)
            try transaction.checkFault(.itemCommit)
        }
    }

    /// The items of `groups` matching `query`, group by group in the order given and in
    /// insertion order within each, read as one consistent state of the database (an item
    /// being moved between two of the groups is seen exactly once).
    func items(matching query: ItemQuery, in groups: [GroupIdentifier], operation: String) throws(KeyringError) -> [KeychainItem] {
        try importLegacyItems(of: groups)
        // One group is one SELECT, which SQLite runs on one committed state by itself: no
        // BEGIN and COMMIT around it. Several groups need a snapshot to agree with each other.
        let body = { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> [KeychainItem] in
            var found: [KeychainItem] = []
            for group in groups {
                for row in try rows(matching: query, in: group, transaction) { found.append(row.item) }
            }
            return found
        }
        return groups.count == 1 ? try database.read(operation, body) : try database.snapshot(operation, body)
    }

    /// Every item of `group`, in insertion order.
    func items(in group: GroupIdentifier) throws(KeyringError) -> [KeychainItem] {
        try importLegacyItems(of: [group])
        return try database.snapshot("read the items of \(group)") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> [KeychainItem] in
            try rows(matching: nil, in: group, transaction).map(\.item)
        }
    }

    /// Finds the rows of `groups` matching `query` and applies what `body` decides, all in one
    /// durable transaction: every change is made or none is (a failure, or `body` throwing,
    /// rolls everything back). A move writes the item to its target group before removing it
    /// from its source, inside that transaction.
    ///
    /// `targets` names the groups items may move to, so their earlier items are imported first.
    ///
    /// - Throws: ``KeyringStatus/duplicateItem`` if the changes would give two items of a group
    ///   one primary key (nothing is changed).
    func change<Result>(
        matching query: ItemQuery,
        in groups: [GroupIdentifier],
        movingTo targets: [GroupIdentifier] = [],
        operation: String,
        _ body: ([Row]) throws(KeyringError) -> (result: Result, changes: [Change])
    ) throws(KeyringError) -> Result {
        try importLegacyItems(of: groups + targets)
        return try database.write(operation) { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> Result in
            var matched: [Row] = []
            for group in groups { matched += try rows(matching: query, in: group, transaction) }
            let (result, changes) = try body(matched)
            try apply(changes, operation: operation, transaction)
            try transaction.checkFault(.itemCommit)
            return result
        }
    }

    /// Reseals every row of a `WhenUnlocked` class still under the master secret (format 1)
    /// under the unlock key (format 2), in one durable transaction: what putting a home in
    /// passphrase mode does to the rows made before. Rows already resealed are left alone, so
    /// this is repeated safely (every unlock does it, completing an interrupted `passphrase set`).
    ///
    /// - Throws: ``KeyringStatus/interactionNotAllowed`` unless the home is unlocked in
    ///   passphrase mode; ``KeyringStatus/decode`` for a row that fails authentication.
    func resealWhenUnlockedRows() throws(KeyringError) {
        guard case .unlockKey = whenUnlocked else {
            throw KeyringError(.interactionNotAllowed, "reseal the items usable only while unlocked: the home \(home.rootPath) is not unlocked in passphrase mode", underlyingError: nil, remedy: .unlock(home: home.root.path))
        }
        try database.write("reseal the items usable only while unlocked") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) in
            let stored = try transaction.query(
                "SELECT id, access_group, item_class, key_hash, service_hash, account_hash, server_hash, reference_hash, sealed FROM items WHERE substr(sealed, 1, 1) = ? ORDER BY id",
                [.blob(Self.masterSecretFormat.bytes)]
            ) { reader in
                (id: reader.integer(0), group: reader.text(1), itemClass: reader.text(2),
                 hashes: Hashes(reading: reader, from: 3),
                 sealed: reader.blob(8))
            }
            for row in stored {
                guard let group = GroupIdentifier(rawValue: row.group) else {
                    throw KeyringError(.decode, "item row \(row.id) in keyring database \(database.path) names an invalid access group; restore the database from a backup")
                }
                let item = try open(row.sealed, id: row.id, itemClass: row.itemClass, hashes: row.hashes, in: group,
                                    hasher: GroupAttributeHasher(group: group, key: database.itemLookupKey))
                guard Self.needsUnlockKey(item.accessibility) else { continue }
                try transaction.apply("UPDATE items SET sealed = ? WHERE id = ?", [.blob(try seal(item, hashes: row.hashes, in: group)), .integer(row.id)], expecting: .exactly(1))
            }
        }
    }

    // MARK: Rows

    private func apply(_ changes: [Change], operation: String, _ transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) {
        let touched = Set(changes.map { change in
            switch change {
            case .replace(let row, _), .delete(let row): row.id
            }
        })
        // Every resulting primary key must be unique in its group: among the changed items, and
        // against every row the change leaves alone.
        var keys = Set<[UInt8]>()
        var replacements: [(row: Row, item: KeychainItem, group: GroupIdentifier, hashes: Hashes)] = []
        for case .replace(let row, let item) in changes {
            guard let group = item.accessGroup ?? row.item.accessGroup else { continue }
            let hashes = Hashes(item, in: group, key: database.itemLookupKey)
            guard keys.insert(Array(group.rawValue.utf8) + [0] + hashes.key).inserted else {
                throw KeyringError(.duplicateItem, "\(operation): the changes would give two items the same primary key (\(item.primaryKey)); nothing was changed")
            }
            if let existing = try rowID(withKey: hashes.key, in: group, transaction), !touched.contains(existing) {
                throw KeyringError(.duplicateItem, "\(operation): the changes would give two items the same primary key (\(item.primaryKey)); nothing was changed")
            }
            replacements.append((row, item, group, hashes))
        }
        for case .delete(let row) in changes {
            try transaction.apply("DELETE FROM items WHERE id = ?", [.integer(row.id)], expecting: .exactly(1))
        }
        // Moves: written to the target first, removed from the source second (one transaction;
        // the order only matters to the fault seam between the two).
        let moves = replacements.filter { $0.group != $0.row.item.accessGroup }
        for move in moves {
            try insert(move.item, hashes: move.hashes, in: move.group, transaction)
        }
        if !moves.isEmpty { try transaction.checkFault(.itemStep) }
        for move in moves {
            try transaction.apply("DELETE FROM items WHERE id = ?", [.integer(move.row.id)], expecting: .exactly(1))
        }
        for replacement in replacements where replacement.group == replacement.row.item.accessGroup {
            // In place: the item keeps its position in insertion order.
            let hashes = replacement.hashes
            try transaction.apply(
                """
                UPDATE items SET item_class = ?, key_hash = ?, service_hash = ?, account_hash = ?, server_hash = ?,
                    reference_hash = ?, sealed = ? WHERE id = ?
                """,
                [.text(replacement.item.itemClass.rawValue)] + hashes.columnValues
                    + [.blob(try seal(replacement.item, hashes: hashes, in: replacement.group)), .integer(replacement.row.id)],
                expecting: .exactly(1))
        }
    }

    private func insert(_ item: KeychainItem, hashes: Hashes, in group: GroupIdentifier, _ transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) {
        try transaction.apply(
            """
            INSERT INTO items (access_group, item_class, key_hash, service_hash, account_hash, server_hash, reference_hash, sealed)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [.text(group.rawValue), .text(item.itemClass.rawValue)] + hashes.columnValues + [.blob(try seal(item, hashes: hashes, in: group))],
            expecting: .exactly(1))
    }

    private func rowID(withKey key: ArraySlice<UInt8>, in group: GroupIdentifier, _ transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> Int64? {
        try transaction.query("SELECT id FROM items WHERE access_group = ? AND key_hash = ?", [.text(group.rawValue), .blob(Array(key))]) { $0.integer(0) }.first
    }

    /// The rows of `group` matching `query`, in insertion order: narrowed through an index by
    /// every attribute the query compares byte for byte, then opened and matched in full.
    /// A `nil` query matches every row of the group.
    private func rows(matching query: ItemQuery?, in group: GroupIdentifier, _ transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> [Row] {
        // One hasher for the query's hashes and every opened row's: the key and the group are
        // absorbed once.
        let hasher = GroupAttributeHasher(group: group, key: database.itemLookupKey)
        let (sql, values) = selection(matching: query, in: group, hasher: hasher)
        let stored = try transaction.query(sql, values) { reader in
            (id: reader.integer(0), itemClass: reader.text(1),
             hashes: Hashes(reading: reader, from: 2),
             sealed: reader.blob(7))
        }
        var matched: [Row] = []
        for row in stored {
            // A row under the unlock key is of a class usable only while unlocked: a query for
            // another class cannot match it, so while locked it is passed over, not refused
            // (as the accessibility filter passes over it in the emulated lock state).
            if row.sealed.first == Self.unlockKeyFormat.version, case .unavailable = whenUnlocked,
               let wanted = query?.accessibility, !Self.needsUnlockKey(wanted) {
                continue
            }
            let item = try open(row.sealed, id: row.id, itemClass: row.itemClass, hashes: row.hashes, in: group, hasher: hasher)
            if query?.matches(item) ?? true { matched.append(Row(id: row.id, item: item)) }
        }
        return matched
    }

    /// The `SELECT` that finds the candidate rows of `group` for `query`, and its values.
    ///
    /// A query that names a generic password's whole primary key (service and account, compared
    /// byte for byte) is narrowed by the primary key's own hash, through the unique index, so
    /// a lookup costs the same whether the account is shared by ten services or ten thousand:
    /// given only the separate service and account hashes, SQLite has no statistics to choose
    /// between their two indexes and may walk every row of the account (issue 19's "one account
    /// across many services" shape).
    ///
    /// `hasher` makes ``Hashes/hasher(for:key:)`` of `group` if anything is hashed.
    func selection(matching query: ItemQuery?, in group: GroupIdentifier, hasher: GroupAttributeHasher) -> (sql: String, values: [SQLiteConnection.Value]) {
        var shape: SelectionShape = []
        // Sized once for the most a shape binds (group, class, reference, two keys), so that
        // appending never reallocates on a lookup's path.
        var values: [SQLiteConnection.Value] = []
        values.reserveCapacity(5)
        values.append(.text(group.rawValue))
        // Unwrapped once: each `if let` of the query copied its twenty-odd fields.
        guard let query else { return (shape.sql, values) }
        shape.insert(.itemClass)
        values.append(.text(query.itemClass.rawValue))
        if let reference = query.persistentReference {
            shape.insert(.reference)
            values.append(.blob(hasher.use { hasher in reference.withUnsafeBytes { Hashes.attribute("reference", $0, hasher: hasher) } }))
        }
        if let primaryKeys = Self.primaryKeyHashes(determinedBy: query, in: group, hasher: hasher, remembered: database.queriedKeyDigests) {
            shape.insert(primaryKeys.count == 1 ? .oneKey : .twoKeys)
            for key in primaryKeys { values.append(.blob(key)) }
        } else if !query.caseInsensitive {
            // Absent in the item and "" in the query are the same value (ItemMatching), and
            // both hash the same.
            if let service = query.service {
                shape.insert(.service)
                values.append(.blob(hasher.use { Hashes.attribute("service", service, hasher: $0) }))
            }
            if let account = query.account {
                shape.insert(.account)
                values.append(.blob(hasher.use { Hashes.attribute("account", account, hasher: $0) }))
            }
            if let server = query.server {
                shape.insert(.server)
                values.append(.blob(hasher.use { Hashes.attribute("server", server, hasher: $0) }))
            }
        }
        return (shape.sql, values)
    }

    /// The hashes of every primary key an item matching `query` in `group` can have, or `nil`
    /// when the query leaves part of the key open. Only generic passwords qualify: their key is
    /// service, account and synchronizable (PrimaryKey.swift), and the query gives the first two
    /// byte for byte and the third as one value or "any" (two keys). An internet password's key
    /// has six more attributes, which queries rarely give all of; keys and certificates are
    /// found by their own attributes.
    ///
    /// `hasher` makes ``Hashes/hasher(for:key:)`` of `group`, keyed with the lookup key of the
    /// database that holds `remembered`, where each hash is looked for first and kept.
    static func primaryKeyHashes(
        determinedBy query: ItemQuery, in group: GroupIdentifier, hasher: GroupAttributeHasher, remembered: Locked<QueriedKeyDigests>
    ) -> [[UInt8]]? {
        guard query.itemClass == .genericPassword, !query.caseInsensitive,
              let service = query.service, let account = query.account else { return nil }
        let synchronizable: [Bool] = switch query.synchronizable {
        case .no: [false]
        case .yes: [true]
        case .any: [false, true]
        }
        var digests: [[UInt8]] = []
        for isSynchronizable in synchronizable {
            if let digest = remembered.withLock({ $0.digest(group: group.rawValue, service: service, account: account, isSynchronizable: isSynchronizable) }) {
                digests.append(digest)
                continue
            }
            let primary = KeychainItem(.genericPassword, service: service, account: account, accessGroup: group, secret: Data()).primaryKey
            let digest = hasher.use { Hashes.primaryKey(primary, isSynchronizable: isSynchronizable, hasher: $0) }
            remembered.withLock { $0.insert(digest, group: group.rawValue, service: service, account: account, isSynchronizable: isSynchronizable) }
            digests.append(digest)
        }
        return digests
    }

    /// SQLite's plan for finding `query`'s candidate rows in `group` (`EXPLAIN QUERY PLAN`, one
    /// line per step): how tests show which index a lookup uses, without timing it.
    func queryPlan(matching query: ItemQuery?, in group: GroupIdentifier) throws(KeyringError) -> [String] {
        let (sql, values) = selection(matching: query, in: group, hasher: GroupAttributeHasher(group: group, key: database.itemLookupKey))
        return try database.read("explain a lookup") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> [String] in
            try transaction.query("EXPLAIN QUERY PLAN " + sql, values) { $0.text(3) }
        }
    }

    // MARK: Sealing

    private func seal(_ item: KeychainItem, hashes: Hashes, in group: GroupIdentifier) throws(KeyringError) -> [UInt8] {
        let plaintext: [UInt8]
        if let body = ItemRowBinary.body(of: item) { plaintext = body } else { plaintext = try Self.encodedByJSONEncoder(item) }
        let (format, key) = try sealingKey(for: item)
        return SealedBox.seal(
            plaintext, format: format, using: key,
            authenticating: Self.additionalData(format: format.version, group: group, itemClass: item.itemClass.rawValue, hashes: hashes)
        ).combined
    }

    /// `item` as `JSONEncoder` encodes it for a row (sorted keys; seconds since 1970, as
    /// `Keyring.currentTime()` expects for an exact round trip): the body of every row before
    /// the binary one, and still of items with key or certificate attributes
    /// (``ItemRowBinary/body(of:)``).
    static func encodedByJSONEncoder(_ item: KeychainItem) throws(KeyringError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        do {
            return Array(try encoder.encode(item))
        } catch {
            throw KeyringError(.invalidParameter, "store \(item.primaryKey): the item does not encode (\(error))", underlyingError: error)
        }
    }

    /// The format and key a row of `item` is sealed with (see the type's documentation).
    private func sealingKey(for item: KeychainItem) throws(KeyringError) -> (format: SealedBox.Format, key: SymmetricKey) {
        guard Self.needsUnlockKey(item.accessibility) else { return (Self.masterSecretFormat, database.itemSealingKey) }
        switch whenUnlocked {
        case .masterSecret:
            return (Self.masterSecretFormat, database.itemSealingKey)
        case .unlockKey(let key):
            return (Self.unlockKeyFormat, key)
        case .unavailable:
            throw KeyringError(.interactionNotAllowed, "store \(item.primaryKey): its accessibility \(item.accessibility) (\(item.accessibility.rawValue)) is sealed under the unlock key, which exists only while the home is unlocked; unlock it with its passphrase", underlyingError: nil, remedy: .unlock(home: home.root.path))
        }
    }

    /// The classes whose rows are sealed under the unlock key in passphrase mode: those usable
    /// only while unlocked.
    static func needsUnlockKey(_ accessibility: Accessibility) -> Bool {
        !accessibility.permitsAccess(in: .locked)
    }

    /// `hasher` makes ``Hashes/hasher(for:key:)`` of `group`, for the consistency check when
    /// the row's bytes were not found consistent before.
    private func open(_ sealed: [UInt8], id: Int64, itemClass: String, hashes: Hashes, in group: GroupIdentifier, hasher: GroupAttributeHasher) throws(KeyringError) -> KeychainItem {
        let refuse = { (detail: String) in
            KeyringError(.decode, "item row \(id) of \(group) in keyring database \(database.path) \(detail); it was not used and will not be overwritten: restore the database from a backup, or delete the item to start over")
        }
        let box: SealedBox
        do {
            box = try SealedBox(combined: sealed, formats: Self.rowFormats)
        } catch {
            switch error {
            case .truncated: throw refuse("is truncated (\(sealed.count) bytes)")
            // No magic: the first byte is the version, so nothing can be foreign but a version.
            case .foreignMagic, .unknownVersion: throw refuse("has unsupported format version \(sealed[0])")
            }
        }
        let format = box.format
        let key: SymmetricKey
        if format == Self.unlockKeyFormat {
            switch whenUnlocked {
            case .unlockKey(let unlockKey):
                key = unlockKey
            case .unavailable:
                throw KeyringError(.interactionNotAllowed, "item row \(id) of \(group) is of a class usable only while unlocked, sealed under the unlock key, and the home is locked: the key is not on this machine until the home is unlocked with its passphrase", underlyingError: nil, remedy: .unlock(home: home.root.path))
            case .masterSecret:
                throw refuse("is sealed under an unlock key, but this home has no passphrase (Keychains/passphrase.wrapped is missing)")
            }
        } else {
            key = database.itemSealingKey
        }
        let additionalData = Self.additionalData(format: format.version, group: group, itemClass: itemClass, hashes: hashes)
        let plaintext: [UInt8]
        do {
            plaintext = try box.open(using: key, authenticating: additionalData)
        } catch {
            throw refuse("fails authentication (altered, or moved from another row or group)")
        }
        let item: KeychainItem
        if plaintext.first == ItemRowBinary.marker {
            guard let read = ItemRowBinary.item(from: plaintext, rowGroup: group) else {
                throw refuse("authenticated but its binary body does not decode as an item")
            }
            item = read
        } else if let read = ItemRowJSON.item(from: plaintext) {
            item = read
        } else {
            // Not the flat shape ItemRowJSON reads: JSONDecoder decides, as it always did.
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            do {
                item = try decoder.decode(KeychainItem.self, from: Data(plaintext))
            } catch {
                throw refuse("authenticated but does not decode as an item")
            }
        }
        // Authenticated content is still checked for consistency, so a bug in an older writer
        // cannot make an item claim another group or key than its row, nor hide it from
        // searches by its attributes: a disagreeing row is refused loudly, not skipped.
        // The hashes' part of that check is a function of the bytes just authenticated and of
        // keys fixed for the database's life: bytes found consistent before need not be hashed
        // again (ConsistentItemRows). Rows under the unlock key are always hashed.
        let remembered = format == Self.masterSecretFormat
            && database.consistentItemRows.withLock { $0.contain(id: id, additionalData: additionalData, sealed: sealed) }
        guard item.accessGroup == group, item.itemClass.rawValue == itemClass,
              remembered || hasher.use({ hashes.match(item, hasher: $0) }) else {
            throw refuse("holds an item that does not belong to its row")
        }
        if !remembered, format == Self.masterSecretFormat {
            database.consistentItemRows.withLock { $0.insert(id: id, additionalData: additionalData, sealed: sealed) }
        }
        // A row under the unlock key must be of a class that needs it: otherwise a row moved
        // between formats could make a WhenUnlocked-only secret readable while locked.
        guard format == Self.masterSecretFormat || Self.needsUnlockKey(item.accessibility) else {
            throw refuse("is sealed under the unlock key but its class \(item.accessibility) is usable while locked")
        }
        return item
    }

    static func additionalData(format: UInt8, group: GroupIdentifier, itemClass: String, hashes: Hashes) -> [UInt8] {
        // One buffer, no array per field: built for every row sealed or opened.
        var data: [UInt8] = []
        data.reserveCapacity(5 + 7 * 4 + group.rawValue.utf8.count + itemClass.utf8.count + 5 * 32)
        data.append(contentsOf: "GVIT".utf8)
        data.append(format)
        data.appendLengthPrefixed(group.rawValue)
        data.appendLengthPrefixed(itemClass)
        // Field by field: an array of the five for a loop was one more allocation per row.
        data.appendLengthPrefixed(hashes.key)
        data.appendLengthPrefixed(hashes.service)
        data.appendLengthPrefixed(hashes.account)
        data.appendLengthPrefixed(hashes.server)
        data.appendLengthPrefixed(hashes.reference)
        return data
    }
}

extension ItemTable {
/// The keyed hashes of one item's row: its primary key and the attributes looked up by.
///
/// Slices: the five read from a row share one array (``init(reading:from:)``), so that a lookup
/// allocates one buffer for them rather than one each.
struct Hashes: Sendable, Equatable {
    let key: ArraySlice<UInt8>
    let service: ArraySlice<UInt8>
    let account: ArraySlice<UInt8>
    let server: ArraySlice<UInt8>
    let reference: ArraySlice<UInt8>

    init(key: [UInt8], service: [UInt8], account: [UInt8], server: [UInt8], reference: [UInt8]) {
        self.key = key[...]
        self.service = service[...]
        self.account = account[...]
        self.server = server[...]
        self.reference = reference[...]
    }

    /// The five as values to bind, in the order of the properties and of the table's columns
    /// (`key_hash` to `reference_hash`).
    var columnValues: [SQLiteConnection.Value] {
        [.blob(Array(key)), .blob(Array(service)), .blob(Array(account)), .blob(Array(server)), .blob(Array(reference))]
    }

    /// The five hashes stored in `reader`'s row from column `first` on, in the order of the
    /// properties, whatever their lengths (a row's are checked when it is opened).
    init(reading reader: SQLiteConnection.RowReader, from first: Int32) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(5 * 32)
        func end(ofColumn offset: Int32) -> Int {
            reader.appendBlob(first + offset, to: &bytes)
            return bytes.count
        }
        let ends = (end(ofColumn: 0), end(ofColumn: 1), end(ofColumn: 2), end(ofColumn: 3), end(ofColumn: 4))
        key = bytes[0..<ends.0]
        service = bytes[ends.0..<ends.1]
        account = bytes[ends.1..<ends.2]
        server = bytes[ends.2..<ends.3]
        reference = bytes[ends.3..<ends.4]
    }

    init(_ item: KeychainItem, in group: GroupIdentifier, key lookupKey: SymmetricKey) {
        self.init(item, hasher: Self.hasher(for: group, key: lookupKey))
    }

    /// The five hashes of `item`, through `hasher` from ``hasher(for:key:)`` of its group.
    init(_ item: KeychainItem, hasher: borrowing KeyedBLAKE2bHasher) {
        var digests: [[UInt8]] = []
        _ = Self.feedMessages(of: item, to: hasher) { hasher in
            digests.append(hasher.finishMessage())
            return true
        }
        (key, service, account, server, reference) = (digests[0][...], digests[1][...], digests[2][...], digests[3][...], digests[4][...])
    }

    /// Whether these are `item`'s hashes, computed through `hasher` from ``hasher(for:key:)``
    /// of its group and compared as each is finished (an opened row's check, which needs no
    /// array of its own per digest).
    func match(_ item: KeychainItem, hasher: borrowing KeyedBLAKE2bHasher) -> Bool {
        var finished = 0
        return Self.feedMessages(of: item, to: hasher) { hasher in
            defer { finished += 1 }
            return hasher.finishMessage(hasDigest: self[finished])
        }
    }

    /// The hash at `index` in the order of the properties.
    private subscript(index: Int) -> ArraySlice<UInt8> {
        switch index {
        case 0: key
        case 1: service
        case 2: account
        case 3: server
        default: reference
        }
    }

    /// Feeds `item`'s five messages to `hasher` in the order of the properties (primary key,
    /// service, account, server, reference), calling `finish` to end each; stops at the first
    /// `finish` that returns `false`, and returns whether none did.
    private static func feedMessages(
        of item: KeychainItem, to hasher: borrowing KeyedBLAKE2bHasher, finish: (borrowing KeyedBLAKE2bHasher) -> Bool
    ) -> Bool {
        let primary = item.primaryKey
        feedPrimaryKey(primary, isSynchronizable: primary.isSynchronizable, to: hasher)
        guard finish(hasher) else { return false }
        feedAttribute("service", item.service ?? "", to: hasher)
        guard finish(hasher) else { return false }
        feedAttribute("account", item.account ?? "", to: hasher)
        guard finish(hasher) else { return false }
        feedAttribute("server", item.server ?? "", to: hasher)
        guard finish(hasher) else { return false }
        (item.persistentReference ?? Data()).withUnsafeBytes { feedAttribute("reference", $0, to: hasher) }
        return finish(hasher)
    }

    /// The hasher of every attribute hash in `group`: keyed with `key`, every message starting
    /// with the domain, then the group length-prefixed (absorbed once for all of them).
    static func hasher(for group: GroupIdentifier, key: SymmetricKey) -> KeyedBLAKE2bHasher {
        let hasher = KeyedBLAKE2bHasher(key: key)
        var domain = "GroupVault item attribute 1"
        domain.withUTF8 { hasher.update(UnsafeRawBufferPointer($0)) }
        hasher.update(lengthPrefixed: group.rawValue)
        hasher.markStart()
        return hasher
    }

    /// The hash of the attribute "primary key" whose value is the key's fields: synchronizable
    /// (one byte, `isSynchronizable` rather than the key's own, so one key serves a query for
    /// either), the port (eight, big-endian), then eight strings length-prefixed (so ("ab", "c")
    /// and ("a", "bc") differ), then the class attributes; framed as
    /// ``attribute(_:_:in:key:)`` frames a value, its length computed first since nothing is
    /// built.
    static func primaryKey(_ primary: ItemPrimaryKey, isSynchronizable: Bool, hasher: borrowing KeyedBLAKE2bHasher) -> [UInt8] {
        feedPrimaryKey(primary, isSynchronizable: isSynchronizable, to: hasher)
        return hasher.finishMessage()
    }

    private static func feedPrimaryKey(_ primary: ItemPrimaryKey, isSynchronizable: Bool, to hasher: borrowing KeyedBLAKE2bHasher) {
        let strings = (
            primary.itemClass.rawValue, primary.service, primary.account, primary.server,
            primary.protocol, primary.path, primary.authenticationType, primary.securityDomain)
        var length = 1 + 8 + 8 * 4 + primary.classAttributes.count
        length += strings.0.utf8.count + strings.1.utf8.count + strings.2.utf8.count + strings.3.utf8.count
        length += strings.4.utf8.count + strings.5.utf8.count + strings.6.utf8.count + strings.7.utf8.count
        hasher.update(lengthPrefixed: "primary key")
        hasher.update(bigEndian: UInt32(length))
        hasher.update(bigEndian: UInt8(isSynchronizable ? 1 : 0))
        hasher.update(bigEndian: Int64(primary.port))
        hasher.update(lengthPrefixed: strings.0)
        hasher.update(lengthPrefixed: strings.1)
        hasher.update(lengthPrefixed: strings.2)
        hasher.update(lengthPrefixed: strings.3)
        hasher.update(lengthPrefixed: strings.4)
        hasher.update(lengthPrefixed: strings.5)
        hasher.update(lengthPrefixed: strings.6)
        hasher.update(lengthPrefixed: strings.7)
        // Keys' and certificates' own attributes; nothing for passwords, whose hashes (and so
        // every stored password row) are unchanged by their addition.
        primary.classAttributes.withUnsafeBytes { hasher.update($0) }
    }

    /// Keyed BLAKE2b-256 of one attribute's value in one group: the domain
    /// `"GroupVault item attribute 1"`, then the group, the name and the value, each
    /// length-prefixed (docs/STORAGE.md, "Items").
    static func attribute(_ name: String, _ value: [UInt8], in group: GroupIdentifier, key: SymmetricKey) -> [UInt8] {
        value.withUnsafeBytes { attribute(name, $0, hasher: hasher(for: group, key: key)) }
    }

    /// ``attribute(_:_:in:key:)`` through `hasher` from ``hasher(for:key:)``.
    static func attribute(_ name: String, _ value: UnsafeRawBufferPointer, hasher: borrowing KeyedBLAKE2bHasher) -> [UInt8] {
        feedAttribute(name, value, to: hasher)
        return hasher.finishMessage()
    }

    /// ``attribute(_:_:hasher:)`` of a text value, through its contiguous UTF-8.
    static func attribute(_ name: String, _ value: String, hasher: borrowing KeyedBLAKE2bHasher) -> [UInt8] {
        feedAttribute(name, value, to: hasher)
        return hasher.finishMessage()
    }

    private static func feedAttribute(_ name: String, _ value: UnsafeRawBufferPointer, to hasher: borrowing KeyedBLAKE2bHasher) {
        hasher.update(lengthPrefixed: name)
        hasher.update(lengthPrefixed: value)
    }

    private static func feedAttribute(_ name: String, _ value: String, to hasher: borrowing KeyedBLAKE2bHasher) {
        hasher.update(lengthPrefixed: name)
        hasher.update(lengthPrefixed: value)
    }
}
}

extension KeyringDatabase {
    /// Deletes every item of every group in one transaction, whatever the lock state, and
    /// forgets that any group's items were imported (an earlier layout's `items.sealed` is
    /// imported again on next use): for harnesses (the fuzz targets) where each input starts
    /// from an empty keychain.
    package func removeAllItems() throws(KeyringError) {
        try write("remove every item") { (transaction: borrowing Transaction) throws(KeyringError) in
            try transaction.apply("DELETE FROM items", expecting: .anyNumber)
            try transaction.apply("DELETE FROM imports WHERE kind = 'items'", expecting: .anyNumber)
        }
        itemImportsChecked.withLock { $0.removeAll() }
    }
}
