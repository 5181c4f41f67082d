import ArgumentParser
import Foundation
import GroupSync
import SealedStorage
import Vault

/// `vaultcli sync records`: a group's synced records on this machine (docs/SYNC.md, sections 5
/// and 8), for the shell: list, show, write and delete them, and show, run and watch their
/// exchange with the server.
///
/// A record is its schema version and its payload, the JSON that `SyncedRecords.write`
/// encodes; this command handles records of any type, so it shows the payload as JSON rather
/// than as a Swift type, and writes one given as JSON with its schema version. Payloads are
/// printed only with `--reveal`, names and payloads through the terminal escaper (a member of
/// the group chooses them).
struct SyncRecordsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "records",
        abstract: "List, show, write, adopt, delete and watch a group's synced records; show and run their sync.",
        discussion: """
            Synced records live in a space of their own, beside the group's Vault records (vaultcli records): \
            a record is synced because it was written here or by SyncedRecords.
            """,
        subcommands: [List.self, Show.self, Write.self, Adopt.self, Delete.self, Status.self, Now.self, Verify.self, Watch.self],
        defaultSubcommand: List.self)

    struct Options: ParsableArguments {
        @OptionGroup var process: ProcessOptions
        @Option(help: "The application group whose key seals the records.") var group: String
        @Option(help: "The sync server URL (default: GROUPVAULT_SYNC_URL).") var url: String?
        @Flag(help: "Print JSON, one object per line.") var json = false

        /// The records, their session verifying the server every `verificationInterval` when given.
        func open(verificationInterval: Duration?? = nil) throws -> SyncedRecords {
            let group = try parseGroup(group)
            let keyring = try process.keyring()
            do throws(SyncError) {
                return try SyncedRecords(group: group, keyring: keyring, configuration: try serverConfiguration(url, verificationInterval: verificationInterval))
            } catch {
                throw CLIError(error)
            }
        }
    }

    /// A record as `list` and `show` print it: never its payload unless asked.
    struct Entry: Encodable {
        var name: String
        var schemaVersion: UInt32?
        var payloadBytes: Int?
        var payload: JSONValue?
        var error: String?
    }

    static func entry(_ records: SyncedRecords, _ name: String, reveal: Bool = false) throws -> Entry? {
        let found: (schemaVersion: UInt32, payload: ArraySlice<UInt8>)?
        do throws(SyncError) {
            found = try records.payload(of: name)
        } catch where error.code == .refused {
            return Entry(name: name, error: error.reason)
        } catch {
            throw CLIError(error)
        }
        guard let found else { return nil }
        var entry = Entry(name: name, schemaVersion: found.schemaVersion, payloadBytes: found.payload.count)
        if reveal {
            guard let payload = try? JSONDecoder().decode(JSONValue.self, from: Data(found.payload)) else {
                throw CLIError(.failed, "record \(Terminal.escaped(name)) is authentic, but its payload is not JSON (\(found.payload.count) bytes)")
            }
            entry.payload = payload
        }
        return entry
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the records this machine holds, with their schema versions and sizes.")
        @OptionGroup var options: Options

        /// The `--json` shape.
        struct Report: Encodable {
            var group: String
            var records: [Entry]
        }

        func run() async throws {
            let records = try options.open()
            let entries = try records.names().compactMap { try SyncRecordsCommand.entry(records, $0) }
            if options.json {
                print(try JSONOutput.encodeLine(Report(group: options.group, records: entries)))
                return
            }
            if entries.isEmpty {
                print("no synced records in \(Terminal.escaped(options.group))")
                return
            }
            var table = Table("NAME", "SCHEMA", "PAYLOAD")
            for entry in entries {
                table.add(entry.name, entry.schemaVersion.map { String($0) } ?? "-", entry.error.map { "refused: \($0)" } ?? "\(entry.payloadBytes ?? 0) bytes")
            }
            table.print()
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Print a record's schema version and size; its payload (JSON) only with --reveal (exit 4 when absent).")
        @OptionGroup var options: Options
        @Argument(help: "The record name.") var name: String
        @Flag(help: "Print the payload too.") var reveal = false

        func run() async throws {
            guard let entry = try SyncRecordsCommand.entry(try options.open(), name, reveal: reveal) else {
                throw CLIError(.notFound, "no synced record \(Terminal.escaped(name)) in \(Terminal.escaped(options.group))")
            }
            if let error = entry.error {
                throw CLIError(.refused, "record \(Terminal.escaped(name)): \(Terminal.escaped(error))")
            }
            if options.json {
                print(try JSONOutput.encodeLine(entry))
                return
            }
            var table = Table("FIELD", "VALUE")
            table.add("name", entry.name)
            table.add("schema", String(entry.schemaVersion ?? 0))
            table.add("payload", reveal ? "\(entry.payloadBytes ?? 0) bytes:" : "\(entry.payloadBytes ?? 0) bytes (hidden; --reveal prints it)")
            table.print()
            if let payload = entry.payload { print(try JSONOutput.encodeIndented(payload)) }
        }
    }

    struct Write: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write",
            abstract: "Write a record from its payload as JSON and its schema version: durable here at once, pushed by the next exchange.",
            discussion: "The payload is what the record's type encodes, e.g. '{\"isAuthenticated\":true}' for a Codable struct with that property.")
        @OptionGroup var options: Options
        @Argument(help: "The record name.") var name: String
        @Argument(help: "The payload: a JSON text that names no member twice in an object.") var payload: String
        @Option(help: "The schema version its readers accept (the type's VaultRecord.schemaVersion).") var schema: UInt32

        /// The `--json` shape.
        struct Report: Encodable {
            var name: String
            var schemaVersion: UInt32
            var payloadBytes: Int
            var stored = true
        }

        func run() async throws {
            let bytes = Array(payload.utf8)
            // Checked as a synced entry's reader checks it (docs/SYNC.md, section 5), so that
            // no reader, JSONDecoder or another implementation's, reads it otherwise.
            guard (try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))) != nil else {
                throw CLIError(.usage, "the payload is not JSON: give the record as its type encodes it, e.g. '{\"isAuthenticated\":true}'")
            }
            guard JSONMemberNames.areUnique(in: bytes) else {
                throw CLIError(.usage, "the payload names a member twice in one object, which readers would read differently")
            }
            let records = try options.open()
            do throws(SyncError) {
                try records.writePayload(bytes, schemaVersion: schema, to: name)
            } catch {
                throw CLIError(error)
            }
            if options.json {
                print(try JSONOutput.encodeLine(Report(name: name, schemaVersion: schema, payloadBytes: bytes.count)))
            } else {
                print("stored \(Terminal.escaped(name)) (schema \(schema), \(bytes.count) bytes)")
            }
        }
    }

    struct Adopt: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "adopt",
            abstract: "Opt a record of the group's Vault into sync: checked as a Vault read checks it, copied here under its name, pushed by the next exchange (exit 4 when absent).",
            discussion: "The Vault's record is left as it is: read and write the synced record from then on. A record with an expiry, or a name synced already, is refused.")
        @OptionGroup var options: Options
        @Argument(help: "The record name.") var name: String

        /// The `--json` shape.
        struct Report: Encodable {
            var name: String
            var schemaVersion: UInt32
            var payloadBytes: Int
            var adopted = true
        }

        func run() async throws {
            let records = try options.open()
            let vault = try openVault(options.process, options.group)
            let adopted: (schemaVersion: UInt32, payloadBytes: Int)
            do throws(SyncError) {
                adopted = try records.adoptPayload(from: vault, name: name)
            } catch where (error.underlyingError as? VaultError)?.code == .notFound {
                throw CLIError(.notFound, "no record \(Terminal.escaped(name)) in the Vault of \(Terminal.escaped(options.group))")
            } catch {
                throw CLIError(error)
            }
            if options.json {
                print(try JSONOutput.encodeLine(Report(name: name, schemaVersion: adopted.schemaVersion, payloadBytes: adopted.payloadBytes)))
            } else {
                print("adopted \(Terminal.escaped(name)) (schema \(adopted.schemaVersion), \(adopted.payloadBytes) bytes); the Vault's record is left as it is")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a record everywhere: durable here at once, pushed by the next exchange.")
        @OptionGroup var options: Options
        @Argument(help: "The record name.") var name: String

        func run() async throws {
            let records = try options.open()
            do throws(SyncError) {
                try records.delete(name)
            } catch {
                throw CLIError(error)
            }
            if options.json {
                print(try JSONOutput.encodeLine(["deleted": name]))
            } else {
                print("deleted \(Terminal.escaped(name))")
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the server, the records' store id, last push and pull, pending writes, conflicts and refusals.")
        @OptionGroup var options: Options

        func run() async throws {
            try options.open().printStatus(json: options.json)
        }
    }

    struct Now: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "now", abstract: "Exchange with the server once: pull, then push every pending write.")
        @OptionGroup var options: Options

        func run() async throws {
            try await options.open().exchangeOnce(json: options.json)
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Compare every record the server holds with what this machine accepted; write back what it dropped or rolled back (exit 1 on findings).")
        @OptionGroup var options: Options

        func run() async throws {
            try await options.open().verifyOnce(json: options.json)
        }
    }

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Run the sync and print each record changed by another machine or process, and each write of this machine that lost to another's.",
            discussion: "Prints 'watching' once the watch is in place; runs until killed or --count lines after it.")
        @OptionGroup var options: Options
        @Option(help: "Exit after this many changes and conflicts.") var count: Int?
        @OptionGroup var verification: VerificationOptions

        /// The `--json` shapes, one object per line.
        struct Line: Encodable {
            var event: String
            var group: String?
            var server: String?
            var reason: String?
            var names: [String]?
            var name: String?
            var winningSequence: UInt64?
        }

        func run() async throws {
            let records = try options.open(verificationInterval: verification.interval)
            let events = SyncedRecords.events(records.changes(), records.conflicts())
            let server = records.configuration?.url.redacted
            await records.watch(events, count: count) {
                if options.json {
                    printJSONLine(Line(event: "watching", group: options.group, server: server))
                } else {
                    printEscapedLine("watching the synced records of \(options.group), \(server.map { "syncing with \($0)" } ?? "local only (no sync server)")")
                }
            } report: { event in
                switch event {
                case .changed(let change):
                    if options.json {
                        printJSONLine(Line(event: "changed", reason: change.reason.description, names: change.changedKeys.sorted()))
                    } else {
                            printEscapedLine(change.line)
                    }
                case .conflict(let conflict):
                    if options.json {
                        printJSONLine(Line(event: "conflict", name: conflict.key, winningSequence: conflict.winningSequence))
                    } else {
                        printEscapedLine("conflict: \(conflict.key): another machine's write (sequence \(conflict.winningSequence)) reached the server first; this machine's was not applied")
                    }
                }
            }
        }
    }
}
