/// The text attributes of an item, each with how it is read and written in an item, a query
/// and a change set. Matching, size limits, "not found" messages and updates all iterate this
/// one table, so an attribute added here is handled everywhere at once.
///
/// A class, not a struct: every lookup walks the table to match an opened item, and taking a
/// struct of four closures and two strings out of the array retained and released each of the
/// six, 60 pairs a lookup (about 1,400 instructions); a reference is one pair.
final class TextAttribute: Sendable {
    /// How messages name it, e.g. "security domain".
    let name: String
    /// Apple's constant, e.g. `kSecAttrSecurityDomain`, also for messages.
    let constant: String
    /// Reads it from an item.
    let readItem: @Sendable (KeychainItem) -> String?
    /// Sets (or, with `nil`, clears) it in an item.
    let writeItem: @Sendable (inout KeychainItem, String?) -> Void
    /// Reads what a query asks for.
    let readQuery: @Sendable (ItemQuery) -> String?
    /// Reads what a change set does to it: set (`.some(value)`), clear (`.some(nil)`), or
    /// leave (`nil`).
    let readChange: @Sendable (ItemChanges) -> String??

    init(
        name: String, constant: String, readItem: @escaping @Sendable (KeychainItem) -> String?,
        writeItem: @escaping @Sendable (inout KeychainItem, String?) -> Void, readQuery: @escaping @Sendable (ItemQuery) -> String?,
        readChange: @escaping @Sendable (ItemChanges) -> String??
    ) {
        self.name = name
        self.constant = constant
        self.readItem = readItem
        self.writeItem = writeItem
        self.readQuery = readQuery
        self.readChange = readChange
    }

    /// "service (kSecAttrService)": what a limit message names.
    var qualifiedName: String { "\(name) (\(constant))" }

    /// Every text attribute, in the order messages list them. Closures, not key paths: the
    /// thirty key paths this table held cost a new process about 0.8 million instructions
    /// (`swift_getKeyPath`) at its first lookup, about a twentieth of a cold lookup.
    static let all: [TextAttribute] = [
        TextAttribute(
            name: "service", constant: "kSecAttrService",
            readItem: { $0.service }, writeItem: { $0.service = $1 }, readQuery: { $0.service }, readChange: { $0.service }),
        TextAttribute(
            name: "account", constant: "kSecAttrAccount",
            readItem: { $0.account }, writeItem: { $0.account = $1 }, readQuery: { $0.account }, readChange: { $0.account }),
        TextAttribute(
            name: "label", constant: "kSecAttrLabel",
            readItem: { $0.label }, writeItem: { $0.label = $1 }, readQuery: { $0.label }, readChange: { $0.label }),
        TextAttribute(
            name: "description", constant: "kSecAttrDescription",
            readItem: { $0.itemDescription }, writeItem: { $0.itemDescription = $1 }, readQuery: { $0.itemDescription }, readChange: { $0.itemDescription }),
        TextAttribute(
            name: "comment", constant: "kSecAttrComment",
            readItem: { $0.comment }, writeItem: { $0.comment = $1 }, readQuery: { $0.comment }, readChange: { $0.comment }),
        TextAttribute(
            name: "server", constant: "kSecAttrServer",
            readItem: { $0.server }, writeItem: { $0.server = $1 }, readQuery: { $0.server }, readChange: { $0.server }),
        TextAttribute(
            name: "protocol", constant: "kSecAttrProtocol",
            readItem: { $0.protocol }, writeItem: { $0.protocol = $1 }, readQuery: { $0.protocol }, readChange: { $0.protocol }),
        TextAttribute(
            name: "path", constant: "kSecAttrPath",
            readItem: { $0.path }, writeItem: { $0.path = $1 }, readQuery: { $0.path }, readChange: { $0.path }),
        TextAttribute(
            name: "authentication type", constant: "kSecAttrAuthenticationType",
            readItem: { $0.authenticationType }, writeItem: { $0.authenticationType = $1 }, readQuery: { $0.authenticationType }, readChange: { $0.authenticationType }),
        TextAttribute(
            name: "security domain", constant: "kSecAttrSecurityDomain",
            readItem: { $0.securityDomain }, writeItem: { $0.securityDomain = $1 }, readQuery: { $0.securityDomain }, readChange: { $0.securityDomain }),
    ]
}
