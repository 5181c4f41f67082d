/// The text attributes of an item, each with where it lives in an item, a query and a change
/// set. Matching, size limits, "not found" messages and updates all iterate this one table, so
/// an attribute added here is handled everywhere at once.
struct TextAttribute: Sendable {
    /// How messages name it, e.g. "security domain".
    let name: String
    /// Apple's constant, e.g. `kSecAttrSecurityDomain`, also for messages.
    let constant: String
    /// Where an item stores it.
    let item: WritableKeyPath<KeychainItem, String?> & Sendable
    /// Where a query asks for it.
    let query: KeyPath<ItemQuery, String?> & Sendable
    /// Where a change set sets (`.some(value)`) or clears (`.some(nil)`) it.
    let change: KeyPath<ItemChanges, String??> & Sendable
    /// ``item`` and ``query`` as plain reads, for matching: every row a search opens is matched
    /// against every attribute, and a key path read goes through the runtime (~5% of a warm
    /// lookup), a closure does not.
    let readItem: @Sendable (KeychainItem) -> String?
    let readQuery: @Sendable (ItemQuery) -> String?

    /// "service (kSecAttrService)": what a limit message names.
    var qualifiedName: String { "\(name) (\(constant))" }

    /// Every text attribute, in the order messages list them.
    static let all: [TextAttribute] = [
        TextAttribute(name: "service", constant: "kSecAttrService", item: \.service, query: \.service, change: \.service, readItem: { $0.service }, readQuery: { $0.service }),
        TextAttribute(name: "account", constant: "kSecAttrAccount", item: \.account, query: \.account, change: \.account, readItem: { $0.account }, readQuery: { $0.account }),
        TextAttribute(name: "label", constant: "kSecAttrLabel", item: \.label, query: \.label, change: \.label, readItem: { $0.label }, readQuery: { $0.label }),
        TextAttribute(name: "description", constant: "kSecAttrDescription", item: \.itemDescription, query: \.itemDescription, change: \.itemDescription, readItem: { $0.itemDescription }, readQuery: { $0.itemDescription }),
        TextAttribute(name: "comment", constant: "kSecAttrComment", item: \.comment, query: \.comment, change: \.comment, readItem: { $0.comment }, readQuery: { $0.comment }),
        TextAttribute(name: "server", constant: "kSecAttrServer", item: \.server, query: \.server, change: \.server, readItem: { $0.server }, readQuery: { $0.server }),
        TextAttribute(name: "protocol", constant: "kSecAttrProtocol", item: \.protocol, query: \.protocol, change: \.protocol, readItem: { $0.protocol }, readQuery: { $0.protocol }),
        TextAttribute(name: "path", constant: "kSecAttrPath", item: \.path, query: \.path, change: \.path, readItem: { $0.path }, readQuery: { $0.path }),
        TextAttribute(name: "authentication type", constant: "kSecAttrAuthenticationType", item: \.authenticationType, query: \.authenticationType, change: \.authenticationType, readItem: { $0.authenticationType }, readQuery: { $0.authenticationType }),
        TextAttribute(name: "security domain", constant: "kSecAttrSecurityDomain", item: \.securityDomain, query: \.securityDomain, change: \.securityDomain, readItem: { $0.securityDomain }, readQuery: { $0.securityDomain }),
    ]
}
