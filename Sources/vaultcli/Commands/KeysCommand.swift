import ArgumentParser
import Foundation
import Keyring
import Vault

/// `vaultcli keys`: list, rotate, retire, export and import the keys of a group's keyset.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "List, create, rotate, retire, export and import a group's keys (key bytes only with --reveal).",
        subcommands: [List.self, Create.self, Rotate.self, Retire.self, Export.self, Import.self],
        defaultSubcommand: List.self)

    /// The `--json` shape of one key (docs/CLI.md).
    struct KeyReport: Encodable {
        var id: UInt32
        var status: String
        var created: Date
        var retired: Date?

        init(_ descriptor: KeyDescriptor) {
            id = descriptor.id
            status = descriptor.status.rawValue
            created = descriptor.createdAt
            retired = descriptor.retiredAt
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the keys of a group's keyset.")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The access group.") var group: String

        func run() throws {
            let keys = try process.keyring().keys(in: try parseGroup(group)).map(KeyReport.init)
            try output.emit(["keys": keys]) {
                if keys.isEmpty {
                    print("no keys yet (the first record written creates key #1; or: vaultcli keys create --group \(Terminal.escaped(group)))")
                    return
                }
                var table = Table("ID", "STATUS", "CREATED", "RETIRED")
                for key in keys {
                    table.add(String(key.id), key.status, key.created.formatted(.iso8601), key.retired?.formatted(.iso8601) ?? "-")
                }
                table.print()
            }
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Make a new group's first key, key #1 (the first record written would make it too).",
            discussion: "Refused (exit 5) when the keyset already has a key: add one with `vaultcli keys rotate`.")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The access group.") var group: String

        func run() throws {
            let keyring = try process.keyring()
            let groupID = try parseGroup(group)
            if let primary = try keyring.keys(in: groupID).first(where: { $0.status == .primary }) {
                throw CLIError(.refused, "\(Terminal.escaped(group)) already has keys (primary: key #\(primary.id)): add a new primary with vaultcli keys rotate --group \(Terminal.escaped(group))",
                               remedy: "vaultcli keys rotate --group \(ShellCommand.quoted(group))")
            }
            let id = try keyring.groupKey(for: groupID).id
            guard let created = try keyring.keys(in: groupID).first(where: { $0.id == id }) else {
                throw CLIError(.failed, "key #\(id) of \(Terminal.escaped(group)) was made but is not in its keyset: run vaultcli doctor")
            }
            let key = KeyReport(created)
            try output.emit(key) { print("created key #\(key.id), the primary key of \(Terminal.escaped(group))") }
        }
    }

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate",
            abstract: "Make a new primary key; older keys still open existing records.",
            discussion: "Follow with `vaultcli records reseal` before retiring the old key.")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The access group.") var group: String

        func run() throws {
            let keyring = try process.keyring()
            let groupID = try parseGroup(group)
            let hadKeys = try !keyring.keys(in: groupID).isEmpty
            let key = KeyReport(try keyring.rotateKey(in: groupID))
            try output.emit(key) {
                if hadKeys {
                    print("new primary: key #\(key.id) (reseal records with: vaultcli records reseal --group \(Terminal.escaped(group)))")
                } else {
                    // Rotating an empty keyset makes its first key: there is no older key to
                    // reseal away from or retire, and saying "new primary" would suggest one.
                    print("the group had no key: created its first, key #\(key.id) (primary); rotate again to have an older key to retire")
                }
            }
        }
    }

    struct Retire: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retire",
            abstract: "Erase a non-primary key. Refused while records are sealed with it, unless --force.",
            discussion: "Reseal first (vaultcli records reseal --group GROUP), or export the key (keys export) so it can be imported again.")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The access group.") var group: String
        @Option(parsing: .unconditional, help: "The key id to retire.") var id: UInt32
        @Flag(help: "Retire even though records are still sealed with the key; they become unreadable for good.")
        var force = false

        /// The `--json` shape.
        struct Report: Encodable {
            var id: UInt32
            var retired: Bool
            var unreadableRecords: [String]
        }

        func run() throws {
            let keyring = try process.keyring()
            let groupID = try parseGroup(group)
            // The primary key is refused before anything is counted: its refusal does not
            // depend on the records, and naming them all would bury the one thing to do.
            if try keyring.keys(in: groupID).contains(where: { $0.id == id && $0.status == .primary }) {
                throw CLIError(.refused, """
                    key #\(id) is the primary key of \(Terminal.escaped(group)), which seals every new record: rotate first \
                    (vaultcli keys rotate --group \(Terminal.escaped(group))), reseal (vaultcli records reseal --group \(Terminal.escaped(group))), \
                    then retire it
                    """, remedy: "vaultcli keys rotate --group \(ShellCommand.quoted(group))")
            }
            // Only application groups hold sealed records; a keychain access group has none.
            let sealed = keyring.identity.applicationGroups.contains(groupID)
                ? try Vault(keyring: keyring, group: groupID).records(sealedWithKey: id) : []
            if !sealed.isEmpty && !force {
                throw CLIError(.refused, """
                    key #\(id) of \(Terminal.escaped(group)) still seals \(RecordSummary(sealed).text) \
                    (list them with: vaultcli records list --group \(Terminal.escaped(group))): reseal them first \
                    (vaultcli records reseal --group \(Terminal.escaped(group))), or pass --force to make them unreadable for good
                    """, remedy: "vaultcli records reseal --group \(ShellCommand.quoted(group))")
            }
            try keyring.retireKey(id: id, in: groupID)
            try output.emit(Report(id: id, retired: true, unreadableRecords: sealed)) {
                if sealed.isEmpty {
                    print("retired key #\(id)")
                } else {
                    print("retired key #\(id); \(sealed.count) record\(sealed.count == 1 ? " is" : "s are") now unreadable: \(RecordSummary(sealed).names)")
                }
            }
        }
    }

    /// A count of records and the first few names, for one line a person reads: a group may
    /// hold thousands of records, and a line naming every one is a wall no one reads (`--json`
    /// keeps the whole list).
    struct RecordSummary {
        /// How many names are shown before "and N more".
        static let shown = 5
        let names: String
        let text: String

        init(_ records: [String]) {
            let first = records.prefix(Self.shown).map(Terminal.escaped).joined(separator: ", ")
            let rest = records.count - min(records.count, Self.shown)
            names = rest > 0 ? "\(first) and \(rest) more" : first
            text = "\(records.count) record\(records.count == 1 ? "" : "s") (\(names))"
        }
    }

    /// Key encodings for export and import.
    enum KeyFormat: String, ExpressibleByArgument, CaseIterable {
        case hex, base64

        func encode(_ bytes: Data) -> String {
            switch self {
            case .hex: bytes.map { String(format: "%02x", $0) }.joined()
            case .base64: bytes.base64EncodedString()
            }
        }

        func decode(_ text: String) -> Data? {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch self {
            case .base64:
                return Data(base64Encoded: trimmed)
            case .hex:
                guard trimmed.count % 2 == 0 else { return nil }
                var bytes = Data()
                var index = trimmed.startIndex
                while index < trimmed.endIndex {
                    let next = trimmed.index(index, offsetBy: 2)
                    guard let byte = UInt8(trimmed[index..<next], radix: 16) else { return nil }
                    bytes.append(byte)
                    index = next
                }
                return bytes
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Print a key's 32 bytes (for a backup, or an independent reader of docs/FORMAT.md).",
            discussion: "Refused without --reveal: the output is the key itself; keep it out of logs and shell history.")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The access group.") var group: String
        @Option(parsing: .unconditional, help: "The key id.") var id: UInt32
        @Option(help: "hex (default) or base64.") var format: KeyFormat = .hex
        @Flag(help: "Required: confirms that the key bytes may be printed.") var reveal = false

        /// The `--json` shape.
        struct Report: Encodable {
            var group: String
            var id: UInt32
            var format: String
            var key: String
        }

        func run() throws {
            guard reveal else {
                throw CLIError.usage("keys export prints the key itself, which opens every record sealed with it: add --reveal to confirm")
            }
            let keyring = try process.keyring()
            let groupID = try parseGroup(group)
            // A retired key exists but has no bytes: a refusal (5), told apart from an id the
            // keyset never had (4), which the library reports alike.
            if let retired = try keyring.keys(in: groupID).first(where: { $0.id == id && $0.status == .retired }) {
                throw CLIError(.refused, "key #\(id) of \(groupID) was retired\(retired.retiredAt.map { " on \($0)" } ?? "") and its bytes erased, so it cannot be exported",
                               remedy: "export an active key: vaultcli keys list --group \(groupID)")
            }
            var bytes = try keyring.exportKey(id: id, in: groupID)
            defer { bytes.resetBytes(in: bytes.startIndex..<bytes.endIndex) }
            let report = Report(group: group, id: id, format: format.rawValue, key: format.encode(bytes))
            try output.emit(report) { print(report.key) }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Put an exported key back under its id; the key is read from standard input or --key-file.",
            discussion: "Refused without --reveal, since the key passes through this terminal. A new id joins as active (primary if the keyset is empty); a retired id becomes active again.")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The access group.") var group: String
        @Option(parsing: .unconditional, help: "The key id it had when exported.") var id: UInt32
        @Option(help: "hex (default) or base64.") var format: KeyFormat = .hex
        @Option(help: "Read the encoded key from this file instead of standard input.") var keyFile: String?
        @Flag(help: "Required: confirms that key bytes are handled here.") var reveal = false

        /// The most bytes of encoded key read from standard input or `--key-file`.
        static let maximumEncodedKeySize = 4096

        func run() throws {
            guard reveal else {
                throw CLIError.usage("keys import handles the key itself: add --reveal to confirm")
            }
            // An encoded 32-byte key is 64 hex digits or 44 base64 characters; the limit leaves
            // room for whitespace and line breaks, and stops `/dev/zero` or a mistaken file.
            let limit = Self.maximumEncodedKeySize
            let what = "an encoded key"
            var encoded: [UInt8]
            if let keyFile {
                encoded = try BoundedInput.file(keyFile, limit: limit, flag: "--key-file", what: what)
            } else if Terminal.standardInputIsTerminal {
                encoded = Array(Terminal.readLineWithoutEcho(prompt: "key (\(format.rawValue)): ").utf8)
            } else {
                encoded = try BoundedInput.standardInput(limit: limit, what: what)
            }
            defer { for index in encoded.indices { encoded[index] = 0 } }
            let text = String(decoding: encoded, as: UTF8.self)
            guard var bytes = format.decode(text), bytes.count == 32 else {
                throw CLIError.usage("\(keyFile == nil ? "standard input" : "--key-file") is not a 32-byte key in \(format.rawValue) (--format \(format.rawValue))")
            }
            defer { bytes.resetBytes(in: bytes.startIndex..<bytes.endIndex) }
            let key = KeyReport(try process.keyring().importKey(bytes, id: id, in: try parseGroup(group)))
            try output.emit(key) { print("imported key #\(key.id) (\(key.status))") }
        }
    }
}
