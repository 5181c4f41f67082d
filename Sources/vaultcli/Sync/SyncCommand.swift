import ArgumentParser
import Foundation
import GroupSync
import Keyring

/// `vaultcli sync`: the ubiquitous key-value store of a group on this machine, and its
/// exchange with the sync server (docs/SYNC.md).
///
/// Values are printed only with `--reveal`; keys and values through the terminal escaper (a
/// member of the group chooses them), and the server's URL only with its password as `***`.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Show, run and watch the sync of a group's ubiquitous key-value store; get, set and list its keys; its synced records (sync records).",
        discussion: """
            The server is GROUPVAULT_SYNC_URL (or --url), e.g. postgres://user:password@host/database;
            its password is never printed. The store is the process's
            com.apple.developer.ubiquity-kvstore-identifier entitlement (or --store).
            """,
        subcommands: [Status.self, Now.self, Verify.self, Get.self, Set.self, List.self, Watch.self, SyncRecordsCommand.self],
        defaultSubcommand: Status.self)

    struct StoreOptions: ParsableArguments {
        @OptionGroup var process: ProcessOptions
        @Option(help: "The application group whose key seals the store.") var group: String
        @Option(help: "The store identifier: the entitlement's value with its team prefix, e.g. ABCDE12345.com.example.notes (default: the process's entitlement).") var store: String?
        @Option(help: "The sync server URL (default: GROUPVAULT_SYNC_URL).") var url: String?
        @Flag(help: "Print JSON.") var json = false

        /// The store, its session verifying the server every `verificationInterval` when given.
        func open(verificationInterval: Duration?? = nil) throws -> UbiquitousKeyValueStore {
            let group = try parseGroup(group)
            let keyring = try process.keyring()
            let entitlement: UbiquityKeyValueStoreEntitlement?? = try store.map { .some(UbiquityKeyValueStoreEntitlement(identifier: try parseGroup($0, flag: "--store"))) }
            do throws(SyncError) {
                return try UbiquitousKeyValueStore(
                    group: group, keyring: keyring, entitlement: entitlement,
                    configuration: try serverConfiguration(url, verificationInterval: verificationInterval))
            } catch {
                throw CLIError(error)
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the server, the store id, last push and pull, pending writes, conflicts and refusals.")
        @OptionGroup var options: StoreOptions

        func run() async throws {
            try options.open().printStatus(json: options.json)
        }
    }

    struct Now: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "now", abstract: "Exchange with the server once: pull, then push every pending write.")
        @OptionGroup var options: StoreOptions

        func run() async throws {
            try await options.open().exchangeOnce(json: options.json)
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Compare every key the server holds with what this machine accepted; write back what it dropped or rolled back (exit 1 on findings).")
        @OptionGroup var options: StoreOptions

        func run() async throws {
            try await options.open().verifyOnce(json: options.json)
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Print the value of a key (exit 4 when absent).")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The key.") var key: String

        func run() async throws {
            guard let value = try options.open().object(forKey: key) else {
                throw CLIError(.notFound, "no value for \(Terminal.escaped(key))")
            }
            print(options.json ? try JSONOutput.encodeLine(["key": AnyValue.string(key), "value": AnyValue.value(value)]) : Terminal.escaped(try JSONOutput.encodeLine(value)))
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Set a key to a value given as the store's JSON, e.g. '{\"string\":\"dark\"}'.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The key.") var key: String
        @Argument(help: "The value as JSON: {\"string\":…}, {\"int\":…}, {\"double\":…}, {\"bool\":…}, {\"data\":base64}, {\"date\":seconds since 2001}, {\"array\":[…]}, {\"dict\":{…}}.") var value: String

        func run() async throws {
            let parsed: UbiquitousValue
            do {
                parsed = try JSONDecoder().decode(UbiquitousValue.self, from: Data(value.utf8))
            } catch {
                throw CLIError(.usage, "the value is not the store's JSON form, e.g. {\"string\":\"dark\"}")
            }
            let store = try options.open()
            do throws(SyncError) {
                try store.setValue(parsed, forKey: key)
            } catch {
                throw CLIError(error)
            }
            if options.json { print(try JSONOutput.encodeLine(["key": AnyValue.string(key), "stored": AnyValue.bool(true)])) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the keys (values with --reveal).")
        @OptionGroup var options: StoreOptions
        @Flag(help: "Show values.") var reveal = false

        func run() async throws {
            let values = try options.open().dictionaryRepresentation
            if options.json {
                let rows = values.keys.sorted().map { key in
                    reveal ? AnyValue.object(["key": .string(key), "value": .value(values[key]!)]) : AnyValue.object(["key": .string(key)])
                }
                print(try JSONOutput.encodeLine(["keys": AnyValue.array(rows)]))
                return
            }
            if values.isEmpty { print("no keys") }
            for key in values.keys.sorted() {
                print(Terminal.escaped(key) + (reveal ? "  " + Terminal.escaped(try JSONOutput.encodeLine(values[key]!)) : ""))
            }
        }
    }

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Run the sync and print each change that did not come from this process: another machine's, or another process's of this home.",
            discussion: "Prints 'watching' once the watch is in place; runs until killed or --count changes.")
        @OptionGroup var options: StoreOptions
        @Option(help: "Exit after this many changes.") var count: Int?
        @OptionGroup var verification: VerificationOptions

        /// The `--json` shapes, one object per line.
        struct Line: Encodable {
            var event: String
            var group: String?
            var store: String?
            var server: String?
            var reason: String?
            var keys: [String]?
        }

        func run() async throws {
            let store = try options.open(verificationInterval: verification.interval)
            let events = UbiquitousKeyValueStore.events(store.externalChanges())
            let server = store.configuration?.url.redacted
            await store.watch(events, count: count) {
                if options.json {
                    printJSONLine(Line(event: "watching", group: options.group, store: store.identifier.rawValue, server: server))
                } else {
                    printEscapedLine("watching store \(store.identifier) of \(options.group), \(server.map { "syncing with \($0)" } ?? "local only (no sync server)")")
                }
            } report: { event in
                guard case .changed(let change) = event else { return }
                if options.json {
                    printJSONLine(Line(event: "changed", reason: change.reason.description, keys: change.changedKeys.sorted()))
                } else {
                    printEscapedLine(change.line)
                }
            }
        }
    }

    /// The JSON these commands print.
    indirect enum AnyValue: Encodable {
        case string(String)
        case bool(Bool)
        case value(UbiquitousValue)
        case array([AnyValue])
        case object([String: AnyValue])

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let text): try container.encode(text)
            case .bool(let flag): try container.encode(flag)
            case .value(let value): try container.encode(value)
            case .array(let items): try container.encode(items)
            case .object(let members): try container.encode(members)
            }
        }
    }
}
