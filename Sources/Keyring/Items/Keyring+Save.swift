extension Keyring {
    /// Adds `item`, or replaces the item that has its primary key: the add-or-update that every
    /// keychain user otherwise writes by hand (add, catch `duplicateItem`, update).
    ///
    /// ```swift
    /// try keyring.save(KeychainItem(service: "api.example.com", account: "ada", secret: Data(token.utf8)))
    /// ```
    ///
    /// When an item with `item`'s primary key exists (docs/SECITEM.md, "Matching rules"), its
    /// secret and every other attribute become `item`'s, an attribute `item` leaves out included
    /// (it is cleared); its creation date and persistent reference stay. Otherwise `item` is
    /// added, in its access group or the identity's default one, as ``add(_:)`` does.
    ///
    /// Each step is one transaction; between them another process may add or delete the same
    /// item. A refused add followed by an update that finds nothing (deleted meanwhile) adds
    /// again, so the item is saved whatever the interleaving, up to a few rounds.
    ///
    /// Passwords only (generic and internet); keys and certificates are added and updated
    /// through the `Security` module.
    ///
    /// - Returns: the item as stored, with `item`'s secret.
    /// - Throws: what ``add(_:)`` and ``update(matching:with:)`` throw;
    ///   ``KeyringStatus/invalidParameter`` for a key or certificate;
    ///   ``KeyringStatus/duplicateItem`` if other processes kept adding and removing the item
    ///   for every round.
    @discardableResult
    public func save(_ item: KeychainItem) throws(KeyringError) -> KeychainItem {
        let operation = "save \(item.itemClass.noun)"
        guard item.itemClass == .genericPassword || item.itemClass == .internetPassword else {
            throw KeyringError(.invalidParameter, "\(operation): save(_:) stores passwords; add or update \(item.itemClass.noun)s with SecItemAdd and SecItemUpdate")
        }
        var item = item
        item.accessGroup = try accessGroupForAdding(item.accessGroup, operation: operation)
        let query = Self.primaryKeyQuery(of: item)
        for _ in 0..<3 {
            do {
                return try add(item)
            } catch where error.status == .duplicateItem {
                // Exists: replace it below.
            }
            do {
                try update(matching: query, with: ItemChanges(replacingWith: item))
                var stored = try items(matching: query, limit: .one, includingSecrets: false).first ?? item
                stored.secret = item.secret
                return stored
            } catch where error.status == .itemNotFound {
                // Deleted by another process since the add was refused: add again.
            }
        }
        throw KeyringError(.duplicateItem, "\(operation): other processes added and removed the same item while it was saved, three times; nothing of this call was kept: try again")
    }

    /// The query that matches exactly the item with `item`'s primary key (``ItemPrimaryKey``):
    /// an absent attribute is the empty one, as the device stores it.
    static func primaryKeyQuery(of item: KeychainItem) -> ItemQuery {
        let isInternet = item.itemClass == .internetPassword
        return ItemQuery(
            item.itemClass,
            service: isInternet ? nil : item.service ?? "",
            account: item.account ?? "",
            accessGroup: item.accessGroup,
            synchronizable: item.isSynchronizable ? .yes : .no,
            server: isInternet ? item.server ?? "" : nil,
            protocol: isInternet ? item.protocol ?? "" : nil,
            port: isInternet ? item.port ?? 0 : nil,
            path: isInternet ? item.path ?? "" : nil,
            authenticationType: isInternet ? item.authenticationType ?? "" : nil,
            securityDomain: isInternet ? item.securityDomain ?? "" : nil)
    }
}

extension ItemChanges {
    /// Changes that make an existing item of the same primary key hold exactly `item`'s secret
    /// and attributes: every attribute outside the primary key is set, `nil` ones cleared.
    init(replacingWith item: KeychainItem) {
        self.init()
        label = .some(item.label)
        itemDescription = .some(item.itemDescription)
        comment = .some(item.comment)
        generic = .some(item.generic)
        accessibility = item.accessibility
        accessControl = item.accessControl
        secret = item.secret
        creator = .some(item.creator)
        type = .some(item.type)
        isInvisible = item.isInvisible ?? false
        isNegative = item.isNegative ?? false
    }
}
