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

    /// "service (kSecAttrService)": what a limit message names.
    var qualifiedName: String { "\(name) (\(constant))" }

    /// Every text attribute, in the order messages list them.
    static let all: [TextAttribute] = [
        TextAttribute(name: "service", constant: "kSecAttrService", item: \.service, query: \.service, change: \.service),
        TextAttribute(name: "account", constant: "kSecAttrAccount", item: \.account, query: \.account, change: \.account),
        TextAttribute(name: "label", constant: "kSecAttrLabel", item: \.label, query: \.label, change: \.label),
        TextAttribute(name: "description", constant: "kSecAttrDescription", item: \.itemDescription, query: \.itemDescription, change: \.itemDescription),
        TextAttribute(name: "comment", constant: "kSecAttrComment", item: \.comment, query: \.comment, change: \.comment),
        TextAttribute(name: "server", constant: "kSecAttrServer", item: \.server, query: \.server, change: \.server),
        TextAttribute(name: "protocol", constant: "kSecAttrProtocol", item: \.protocol, query: \.protocol, change: \.protocol),
        TextAttribute(name: "path", constant: "kSecAttrPath", item: \.path, query: \.path, change: \.path),
        TextAttribute(name: "authentication type", constant: "kSecAttrAuthenticationType", item: \.authenticationType, query: \.authenticationType, change: \.authenticationType),
        TextAttribute(name: "security domain", constant: "kSecAttrSecurityDomain", item: \.securityDomain, query: \.securityDomain, change: \.securityDomain),
    ]
}
