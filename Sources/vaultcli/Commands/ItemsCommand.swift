import ArgumentParser
import Foundation
import Keyring
import SharedDefaults

extension Accessibility: ExpressibleByArgument {
    /// Accepts Apple's constant names without the `kSecAttrAccessible` prefix
    /// (`afterFirstUnlock`) as well as the stored codes (`ck`).
    public init?(argument: String) {
        if let value = Accessibility(rawValue: argument) {
            self = value
        } else if let value = Accessibility.allCases.first(where: { "\($0)".caseInsensitiveCompare(argument) == .orderedSame }) {
            self = value
        } else {
            return nil
        }
    }

    /// The names `--help` and shell completion offer: the cases' own names.
    public static var allValueStrings: [String] { allCases.map { "\($0)" } }
}

/// `--class`: the names a user types for the item classes. Its own type rather than
/// `ItemClass` itself, whose raw values are Apple's codes: ArgumentParser shows a raw value
/// as the default in `--help`, which then read `genp`.
enum ItemClassArgument: String, CaseIterable, ExpressibleByArgument {
    case generic, internet

    /// `generic` or `internet`, or Apple's codes `genp`, `inet`.
    init?(argument: String) {
        switch argument {
        case "generic", "genp": self = .generic
        case "internet", "inet": self = .internet
        default: return nil
        }
    }

    var itemClass: ItemClass { self == .generic ? .genericPassword : .internetPassword }
}

/// `vaultcli items`: list, show, add, update and delete keychain items.
struct ItemsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "items",
        abstract: "List, show, add, update and delete keychain items. Secrets are printed only with --reveal.",
        subcommands: [List.self, Show.self, Add.self, Update.self, Delete.self],
        defaultSubcommand: List.self)

    /// The `--json` shape of one item (docs/CLI.md). `secret` is present only with `--reveal`.
    struct ItemReport: Encodable {
        var itemClass: String
        var accessGroup: String?
        var service: String?
        var account: String?
        var server: String?
        var `protocol`: String?
        var port: Int?
        var path: String?
        var label: String?
        var description: String?
        var comment: String?
        var authenticationType: String?
        var securityDomain: String?
        var generic: String?
        var accessibility: String
        var synchronizable: Bool
        var created: Date?
        var modified: Date?
        /// The secret's size; absent in `items list`, which does not decrypt secrets (see
        /// ``init(_:reveal:secretLoaded:)``).
        var secretBytes: Int?
        var secret: String?
        var secretEncoding: String?
        /// The library's own item (SharedDefaults' naming key), not an application's.
        var `internal`: Bool

        /// - Parameter secretLoaded: whether `item` was read with its secret. A listing is not
        ///   (it would decrypt every secret just to count bytes, and fail for items that are
        ///   locked), so its items have an empty `secret` whose size would be a lie: the field
        ///   is left out instead.
        init(_ item: KeychainItem, reveal: Bool, secretLoaded: Bool = true) {
            itemClass = item.itemClass == .genericPassword ? "generic" : "internet"
            accessGroup = item.accessGroup?.rawValue
            service = item.service
            account = item.account
            server = item.server
            self.protocol = item.protocol
            port = item.port
            path = item.path
            label = item.label
            description = item.itemDescription
            comment = item.comment
            authenticationType = item.authenticationType
            securityDomain = item.securityDomain
            generic = item.generic.map { String(decoding: $0, as: UTF8.self) }
            accessibility = "\(item.accessibility)"
            synchronizable = item.isSynchronizable
            created = item.creationDate
            modified = item.modificationDate
            secretBytes = secretLoaded ? item.secret.count : nil
            `internal` = SharedDefaults.isInternalItem(item)
            if reveal {
                // Text secrets print as text; anything else as base64, saying which.
                if let text = String(data: item.secret, encoding: .utf8), !text.unicodeScalars.contains(where: { $0.value < 0x20 }) {
                    secret = text
                    secretEncoding = "utf8"
                } else {
                    secret = item.secret.base64EncodedString()
                    secretEncoding = "base64"
                }
            }
        }
    }

    /// Options that select items: the primary-key attributes.
    struct Selection: ParsableArguments {
        @Option(name: .customLong("class"), help: "generic (default) or internet.")
        var itemClass: ItemClassArgument?
        @Option(help: "The access group (default: every entitled group).")
        var group: String?
        @Option(help: "kSecAttrService.") var service: String?
        @Option(help: "kSecAttrAccount.") var account: String?
        @Option(help: "kSecAttrServer (internet passwords).") var server: String?
        @Flag(help: "Include synchronizable items.") var includeSynchronizable = false

        func query() throws -> ItemQuery {
            var query = ItemQuery(itemClass?.itemClass ?? .genericPassword, service: service, account: account,
                                  synchronizable: includeSynchronizable ? .any : .no, server: server)
            query.accessGroup = try group.map { try parseGroup($0) }
            return query
        }

        /// Every class when none was named (listing), else the named one.
        var classes: [ItemClass] { itemClass.map { [$0.itemClass] } ?? ItemClass.allCases }
    }

    /// Refuses to `change` (delete, update) the items `query` matches when they include an
    /// internal item and `includeInternal` was not given: a selector as broad as `--group`
    /// would otherwise take SharedDefaults' naming key with it, and every setting of the group
    /// would become unreadable while its records stay on disk.
    static func refuseInternalItems(matching query: ItemQuery, in keyring: Keyring, change: String, includeInternal: Bool) throws {
        guard !includeInternal else { return }
        let internalItems = try keyring.items(matching: query, includingSecrets: false).filter(SharedDefaults.isInternalItem)
        guard !internalItems.isEmpty else { return }
        let count = internalItems.count
        let groups = Set(internalItems.compactMap { $0.accessGroup?.rawValue }).sorted().map(Terminal.escaped).joined(separator: ", ")
        throw CLIError.usage("""
            refusing to \(change): the selection includes \(count) internal item\(count == 1 ? "" : "s") (SharedDefaults' \
            naming key, service \(SharedDefaults.namingKeyItemService), in \(groups)); without it every setting of the group \
            is unreadable. Narrow the selection (--service, --account), or add --include-internal if that is meant
            """)
    }

    /// The settable attributes, shared by `add` and `update`: every attribute Apple defines
    /// for password items.
    struct Attributes: ParsableArguments {
        @Option(help: "kSecAttrLabel.") var label: String?
        @Option(help: "kSecAttrComment.") var comment: String?
        @Option(name: .customLong("description"), help: "kSecAttrDescription.") var itemDescription: String?
        @Option(help: "kSecAttrAccessible: \(Accessibility.allValueStrings.joined(separator: ", ")).")
        var accessibility: Accessibility?
        @Option(help: "kSecAttrSynchronizable: true or false.") var synchronizable: Bool?
        @Option(name: .customLong("protocol"), help: "kSecAttrProtocol (internet passwords).") var itemProtocol: String?
        @Option(help: "kSecAttrPort (internet passwords).") var port: Int?
        @Option(help: "kSecAttrPath (internet passwords).") var path: String?
        @Option(help: "kSecAttrAuthenticationType (internet passwords), e.g. dflt, http.") var authenticationType: String?
        @Option(help: "kSecAttrSecurityDomain (internet passwords).") var securityDomain: String?
        @Option(help: "kSecAttrGeneric, as UTF-8 text (not secret: it is listed like any attribute).") var generic: String?
    }

    /// Where a secret comes from: a file, or standard input, never an argument (arguments are
    /// visible to every user in the process list).
    struct SecretSource: ParsableArguments {
        @Option(help: "Read the secret from this file (exact bytes).")
        var secretFile: String?
        @Flag(help: "Store an empty secret; refused otherwise, since an empty input is usually an unset variable.")
        var allowEmpty = false

        /// The secret: the file's bytes, or standard input's with one trailing newline removed
        /// (so `echo token | vaultcli items add ...` stores `token`; use --secret-file for exact
        /// binary input). Neither is read past ``KeychainItem/maximumSecretSize`` (and a line end).
        ///
        /// - Throws: a usage error for an empty secret without `--allow-empty`: `echo "$TOKEN"`
        ///   with `TOKEN` unset sends a lone newline, and storing that silently replaces a
        ///   credential with nothing.
        func read() throws -> Data {
            let secret = try readBytes()
            guard !secret.isEmpty || allowEmpty else {
                let source = secretFile == nil ? "standard input held nothing but a line end (an unset variable in `echo \"$TOKEN\" |`?)" : "--secret-file is empty"
                throw CLIError.usage("the secret is empty: \(source); nothing was stored. Pass --allow-empty to store an empty secret")
            }
            return secret
        }

        private func readBytes() throws -> Data {
            let limit = KeychainItem.maximumSecretSize
            let what = "a keychain item's secret"
            if let secretFile {
                return Data(try BoundedInput.file(secretFile, limit: limit, flag: "--secret-file", what: what))
            }
            if Terminal.standardInputIsTerminal {
                // Typed at a terminal: one line, not echoed (shoulder-surfing, screen recordings).
                return Data(Terminal.readLineWithoutEcho(prompt: "secret: ").utf8)
            }
            return Data(try BoundedInput.standardInput(limit: limit, what: what, strippingLineEnd: true))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the items this identity can reach, without secrets.")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var selection: Selection

        func run() throws {
            let keyring = try process.keyring()
            var query = try selection.query()
            var items: [KeychainItem] = []
            for itemClass in selection.classes {
                query.itemClass = itemClass
                items += try keyring.items(matching: query, includingSecrets: false)
            }
            let reports = items.map { ItemReport($0, reveal: false, secretLoaded: false) }
            try output.emit(["items": reports]) {
                if reports.isEmpty {
                    print("no items (add one: vaultcli items add --service NAME --account NAME < secret)")
                    return
                }
                var table = Table("CLASS", "GROUP", "SERVICE/SERVER", "ACCOUNT", "LABEL", "ACCESSIBLE", "SYNC")
                for item in reports {
                    let name = item.service ?? item.server ?? "-"
                    table.add(item.itemClass, item.accessGroup ?? "-", item.internal ? "\(name) (internal)" : name, item.account ?? "-",
                              item.label ?? "-", item.accessibility, item.synchronizable ? "yes" : "no")
                }
                table.print()
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one item's attributes; its secret only with --reveal.")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var selection: Selection
        @Flag(help: "Print the secret too.") var reveal = false

        func run() throws {
            let keyring = try process.keyring()
            let item = try keyring.item(matching: try selection.query())
            let report = ItemReport(item, reveal: reveal)
            try output.emit(report) {
                var table = Table("ATTRIBUTE", "VALUE")
                table.add("class", report.itemClass)
                table.add("access group", report.accessGroup ?? "-")
                for (name, value) in [("service", report.service), ("account", report.account), ("server", report.server),
                                      ("protocol", report.protocol), ("path", report.path), ("label", report.label),
                                      ("description", report.description), ("comment", report.comment),
                                      ("authentication type", report.authenticationType), ("security domain", report.securityDomain),
                                      ("generic", report.generic)] {
                    if let value { table.add(name, value) }
                }
                if let port = report.port { table.add("port", String(port)) }
                table.add("accessible", report.accessibility)
                table.add("synchronizable", report.synchronizable ? "yes" : "no")
                table.add("secret", report.secret.map { "\($0) (\(report.secretEncoding ?? ""))" }
                    ?? "\(report.secretBytes ?? 0) bytes (hidden; --reveal prints it)")
                table.print()
            }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add an item; the secret is read from standard input or --secret-file, never an argument.")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var output: OutputOptions
        @Option(name: .customLong("class"), help: "The item class.") var itemClass: ItemClassArgument = .generic
        @Option(help: "The access group (default: the identity's first).") var group: String?
        @Option(help: "kSecAttrService.") var service: String?
        @Option(help: "kSecAttrAccount.") var account: String?
        @Option(help: "kSecAttrServer (internet passwords).") var server: String?
        @OptionGroup var attributes: Attributes
        @OptionGroup var secret: SecretSource

        func run() throws {
            let keyring = try process.keyring()
            var item = KeychainItem(
                itemClass.itemClass, service: service, account: account, accessGroup: try group.map { try parseGroup($0) },
                secret: try secret.read(), label: attributes.label, itemDescription: attributes.itemDescription,
                comment: attributes.comment, isSynchronizable: attributes.synchronizable ?? false,
                accessibility: attributes.accessibility ?? .whenUnlocked, server: server,
                protocol: attributes.itemProtocol, port: attributes.port, path: attributes.path,
                authenticationType: attributes.authenticationType, securityDomain: attributes.securityDomain)
            item.generic = attributes.generic.map { Data($0.utf8) }
            let added = try keyring.add(item)
            let report = ItemReport(added, reveal: false)
            try output.emit(report) {
                print("added \(Terminal.escaped(report.service ?? report.server ?? "item")) to \(Terminal.escaped(report.accessGroup ?? "-"))")
            }
        }
    }

    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Change the attributes (and with --new-secret, the secret) of the matching items.")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var selection: Selection
        @OptionGroup var attributes: Attributes
        @Option(help: "Move the matching items to this access group.") var toGroup: String?
        @Flag(help: "Replace the secret too, read from standard input or --secret-file.") var newSecret = false
        @Flag(help: "Let the selection include internal items (SharedDefaults' naming key); refused otherwise.")
        var includeInternal = false
        @OptionGroup var secret: SecretSource

        func run() throws {
            var changes = ItemChanges()
            if let label = attributes.label { changes.label = .some(label) }
            if let comment = attributes.comment { changes.comment = .some(comment) }
            if let description = attributes.itemDescription { changes.itemDescription = .some(description) }
            if let accessibility = attributes.accessibility { changes.accessibility = accessibility }
            if let synchronizable = attributes.synchronizable { changes.isSynchronizable = synchronizable }
            if let value = attributes.itemProtocol { changes.protocol = .some(value) }
            if let port = attributes.port { changes.port = .some(port) }
            if let path = attributes.path { changes.path = .some(path) }
            if let value = attributes.authenticationType { changes.authenticationType = .some(value) }
            if let value = attributes.securityDomain { changes.securityDomain = .some(value) }
            if let value = attributes.generic { changes.generic = .some(Data(value.utf8)) }
            if let toGroup { changes.accessGroup = try parseGroup(toGroup, flag: "--to-group") }
            if newSecret || secret.secretFile != nil { changes.secret = try secret.read() }
            guard changes != ItemChanges() else {
                throw CLIError.usage("nothing to change: give an attribute (--label, --comment, --accessibility, ...), --to-group or --new-secret")
            }
            let keyring = try process.keyring()
            let query = try selection.query()
            try ItemsCommand.refuseInternalItems(matching: query, in: keyring, change: "update", includeInternal: includeInternal)
            let count = try keyring.update(matching: query, with: changes)
            try output.emit(["updated": count]) { print("updated \(count) item\(count == 1 ? "" : "s")") }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete the matching items.")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var selection: Selection
        @Flag(help: "Let the selection include internal items (SharedDefaults' naming key); refused otherwise.")
        var includeInternal = false

        func run() throws {
            guard selection.service != nil || selection.account != nil || selection.server != nil || selection.group != nil else {
                throw CLIError.usage("name what to delete: --service, --account, --server or --group (refusing to delete every item)")
            }
            let keyring = try process.keyring()
            let query = try selection.query()
            // Checked, then deleted: an internal item made in between (a first SharedDefaults
            // write racing this command) is not caught. The check is against an operator's
            // slip, not against a member of the group, who may delete the item anyway.
            try ItemsCommand.refuseInternalItems(matching: query, in: keyring, change: "delete", includeInternal: includeInternal)
            let count = try keyring.delete(matching: query)
            try output.emit(["deleted": count]) { print("deleted \(count) item\(count == 1 ? "" : "s")") }
        }
    }
}
