import ArgumentParser
import Foundation
import Keyring
import Vault

/// `vaultcli records`: list, show, verify, reseal, delete and watch a group's sealed records,
/// and show its trust ledger.
struct RecordsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "records",
        abstract: "List, show, verify, reseal, delete and watch the sealed records of a group; show its trust ledger.",
        subcommands: [List.self, Show.self, Verify.self, Reseal.self, Delete.self, Watch.self, Ledger.self],
        defaultSubcommand: List.self)

    /// The `--json` shape of a record header (docs/CLI.md).
    struct HeaderReport: Encodable {
        var sequence: UInt64
        var keyID: UInt32
        var schemaVersion: UInt32
        var issued: Date
        var expires: Date?
        var deleted: Bool

        init(_ header: RecordHeader) {
            sequence = header.sequence
            keyID = header.keyID
            schemaVersion = header.schemaVersion
            issued = header.issuedAt
            expires = header.expiresAt
            deleted = header.isTombstone
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List records with their headers, without decrypting.",
            discussion: "SharedDefaults' entries (records named sd-<hex>-<hex>) are left out unless --include-internal: vaultcli defaults list shows them by their key.")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The application group.") var group: String
        @Flag(help: "Also list SharedDefaults' entries (records named sd-<hex>-<hex>).") var includeInternal = false

        /// The `--json` shape of one listed record.
        struct Entry: Encodable {
            var name: String
            var size: Int
            var header: HeaderReport?
            var error: String?
        }

        /// The `--json` shape: the records, and how many SharedDefaults entries were left out.
        struct Report: Encodable {
            var records: [Entry]
            var internalHidden: Int
        }

        func run() throws {
            let all = try openVault(process, group).list().map { listing in
                switch listing.header {
                case .success(let header): Entry(name: listing.name, size: listing.size, header: HeaderReport(header))
                case .failure(let error): Entry(name: listing.name, size: listing.size, error: "\(error.code)")
                }
            }
            let entries = includeInternal ? all : all.filter { !SharedDefaultsRecordName.matches($0.name) }
            let hidden = all.count - entries.count
            try output.emit(Report(records: entries, internalHidden: hidden)) {
                if entries.isEmpty {
                    print("no records")
                } else {
                    var table = Table("NAME", "BYTES", "SEQUENCE", "KEY", "SCHEMA", "ISSUED", "EXPIRES", "STATE")
                    for entry in entries {
                        if let header = entry.header {
                            table.add(entry.name, String(entry.size), String(header.sequence), String(header.keyID), String(header.schemaVersion),
                                      header.issued.formatted(.iso8601), header.expires?.formatted(.iso8601) ?? "-", header.deleted ? "deleted" : "present")
                        } else {
                            table.add(entry.name, String(entry.size), "-", "-", "-", "-", "-", "unreadable header: \(entry.error ?? "")")
                        }
                    }
                    table.print()
                }
                if hidden > 0 {
                    print("\(hidden) SharedDefaults entr\(hidden == 1 ? "y" : "ies") not shown (by key: vaultcli defaults list --group \(Terminal.escaped(group)); as records: --include-internal)")
                }
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Authenticate one record and print its header; its payload (JSON) only with --reveal.")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The application group.") var group: String
        @Argument(help: "The record name.") var name: String
        @Flag(help: "Print the decrypted payload too.") var reveal = false

        /// The `--json` shape.
        struct Report: Encodable {
            var name: String
            var header: HeaderReport
            var payloadBytes: Int
            var payload: JSONValue?
        }

        func run() throws {
            let vault = try openVault(process, group)
            // One read: the header shown is the authenticated header of the payload shown.
            let (record, header) = try vault.readWithHeader(OpaquePayload.self, from: name)
            let payload = record.bytes
            let decoded = reveal ? try? JSONDecoder().decode(JSONValue.self, from: payload) : nil
            if reveal && decoded == nil {
                throw CLIError(.failed, "record \(Terminal.escaped(name)) authenticated, but its payload is not JSON (\(payload.count) bytes)")
            }
            let report = Report(name: name, header: HeaderReport(header), payloadBytes: payload.count, payload: decoded)
            try output.emit(report) {
                var table = Table("FIELD", "VALUE")
                table.add("name", report.name)
                table.add("sequence", String(report.header.sequence))
                table.add("key", String(report.header.keyID))
                table.add("schema", String(report.header.schemaVersion))
                table.add("issued", report.header.issued.formatted(.iso8601))
                table.add("expires", report.header.expires?.formatted(.iso8601) ?? "-")
                table.add("payload", reveal ? "\(report.payloadBytes) bytes:" : "\(report.payloadBytes) bytes (hidden; --reveal prints it)")
                table.print()
                if let decoded, let text = try? JSONOutput.encodeIndented(decoded) { print(text) }
            }
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Authenticate every record and check its freshness; exit 1 if any is refused or missing.",
            discussion: """
                Checks what any reader checks of a record's integrity (key, tag, sequence, tombstone), without \
                decoding payloads, and reports records the trust ledger knows whose file is gone. Expiry is not \
                checked: an expired record is authentic, and refusing it is its reader's business.
                """)
        @OptionGroup var process: ProcessOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The application group.") var group: String
        @Flag(help: "Print a line for every record, not only the refused and missing ones.") var all = false

        /// The `--json` shape of one verified record. `status` is `ok`, `deleted`, `refused`
        /// or `missing`.
        struct Result: Encodable {
            var name: String
            var status: String
            var code: String?
            var reason: String?
            var payloadBytes: Int?
        }

        func run() throws {
            let vault = try openVault(process, group)
            let progress = ProgressDisplay("verifying", json: output.json)
            // Cleared whatever happens next, so an error is never glued to a progress line.
            defer { progress.finish() }
            // The library's definition of "verified", the one every reader applies: this
            // command only presents it. A failure for the whole group (the listing, the ledger)
            // throws before any record is checked.
            let report = try vault.verifyAll { progress.update(done: $0.completed, total: $0.total) }
            let results = report.records.map(result)
            progress.finish()
            let failed = results.filter { $0.status == "refused" || $0.status == "missing" }
            try output.emit(["records": results]) {
                if results.isEmpty {
                    print("no records")
                    return
                }
                // A person needs the failures and a count; every line only when asked.
                let shown = all ? results : failed
                if !shown.isEmpty {
                    var table = Table("NAME", "RESULT", "DETAIL")
                    for result in shown {
                        let detail = switch result.status {
                        case "ok": "\(result.payloadBytes ?? 0) payload bytes"
                        case "deleted": "an authentic tombstone"
                        default: "\(result.code ?? ""): \(result.reason ?? "")"
                        }
                        table.add(result.name, result.status, detail)
                    }
                    table.print()
                }
                print(Self.summary(of: results))
            }
            if !failed.isEmpty { throw ExitCode(ExitStatus.findings.rawValue) }
        }

        /// The `--json` shape of `record`: the library's outcome under the names this command
        /// has always printed (`ok` for authentic).
        private func result(_ record: VerificationReport.Record) -> Result {
            switch record.outcome {
            case .authentic:
                return Result(name: record.name, status: "ok", payloadBytes: record.payloadBytes)
            case .deleted:
                return Result(name: record.name, status: "deleted")
            case .missing:
                let name = record.name
                return Result(
                    name: name, status: "missing", code: "missing",
                    reason: "the trust ledger knows this record but its file is gone (removed outside GroupVault); write it again, or record the deletion with: vaultcli records delete --group \(group) \(name.hasPrefix("-") ? "-- " : "")\(name)")
            default:
                return Result(name: record.name, status: "refused", code: record.error.map { "\($0.code)" } ?? record.outcome.rawValue,
                              reason: record.error.map { RemedyCommand.sentence($0.reason, remedy: $0.nearestRemedy) })
            }
        }

        /// `checked 5000 records: 4998 ok, 1 deleted, 1 refused, 0 missing`.
        static func summary(of results: [Result]) -> String {
            let counts = ["ok", "deleted", "refused", "missing"].map { status in
                "\(results.filter { $0.status == status }.count) \(status)"
            }
            return "checked \(results.count) record\(results.count == 1 ? "" : "s"): \(counts.joined(separator: ", "))"
        }
    }

    struct Reseal: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reseal",
            abstract: "Rewrite records under the current primary key, so older keys can be retired.")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The application group.") var group: String
        @Argument(help: "One record to reseal; omit to reseal every record.") var name: String?

        /// The `--json` shape.
        struct Report: Encodable {
            var resealed: Int
        }

        func run() throws {
            let vault = try openVault(process, group)
            let count: Int
            if let name {
                try vault.reseal(name)
                count = 1
            } else {
                // resealAll(progress:), not a loop of reseal(_:): its barrier on the group lock
                // makes a writer that fetched the old key finish first, so no record is left
                // behind under it; it holds each record's writers off for that record only.
                let progress = ProgressDisplay("resealing", json: output.json)
                defer { progress.finish() }
                count = try vault.resealAll { progress.update(done: $0.completed, total: $0.total) }
                progress.finish()
            }
            try output.emit(Report(resealed: count)) {
                print("resealed \(count) record\(count == 1 ? "" : "s")")
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a record: a sealed tombstone replaces it, so readers see an authentic deletion.")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The application group.") var group: String
        @Argument(help: "The record name.") var name: String

        func run() throws {
            try openVault(process, group).delete(name)
            try output.emit(["deleted": name]) { print("deleted \(Terminal.escaped(name)) (a tombstone is in its place)") }
        }
    }

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "watch", abstract: "Print each change to the group's records as it happens (inotify, no polling).")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The application group.") var group: String
        @Argument(help: "Only this record.") var name: String?
        @Option(help: "Exit after this many changes.") var count: Int?

        /// The `--json` shape: one JSON object per line, per change; the first line is
        /// `{"group": …, "kind": "watching"}` once the watch is in place.
        struct Change: Encodable {
            var kind: String
            var name: String?
            var group: String?
        }

        func run() async throws {
            let changes = try openVault(process, group).changes(to: name)
            // Said once the watch is in place, so a script (or a person) knows a change made
            // from now on will be seen. Every line is written at once (printEscapedLine,
            // printJSONLine): redirected to a file, nothing waits in a buffer to be lost
            // when the watcher is killed.
            if output.json {
                printJSONLine(Change(kind: "watching", name: name, group: group))
            } else {
                printEscapedLine("watching \(name.map { "record \($0)" } ?? "every record") in \(group)")
            }
            var seen = 0
            for await change in changes {
                if output.json {
                    printJSONLine(Change(kind: change.kind.rawValue, name: change.name))
                } else {
                    printEscapedLine("\(change.kind.rawValue) \(change.name ?? "*")")
                }
                seen += 1
                if let count, seen >= count { break }
            }
        }
    }
}

/// Opens the vault of `group` as the process identity.
func openVault(_ process: ProcessOptions, _ group: String) throws -> Vault {
    try Vault(keyring: process.keyring(), group: parseGroup(group))
}

/// Any JSON value, for printing a payload as the JSON it is.
indirect enum JSONValue: Codable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
