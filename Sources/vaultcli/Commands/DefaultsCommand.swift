import ArgumentParser
import Foundation
import Keyring
import SharedDefaults
import Vault

/// `vaultcli defaults`: list, read, write, delete and import the keys of a SharedDefaults suite.
///
/// Values are shown only with `--reveal`: a suite may hold things a person at a shared
/// terminal should not see. Keys and values are printed as JSON string literals or JSON
/// values with every character a terminal would act on escaped (``JSONOutput/terminalSafe(_:)``),
/// and reasons through the terminal escaper, so a hostile key (a member of the group chooses
/// it) cannot forge output lines, drive the terminal or read as another key.
struct DefaultsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "defaults",
        abstract: "List, read, write, delete and import the keys of a SharedDefaults suite.",
        discussion: """
            The suite defaults to the group's name, as SharedDefaults(suiteName: "group.…") uses it. \
            Values are shown as a person writes them (30, true, "dark"); --json and `write --type json` \
            use SharedDefaults' tagged JSON form: {"string":"dark"}, {"int":30}, {"bool":true}, ...
            """,
        subcommands: [List.self, Read.self, Write.self, Delete.self, Import.self],
        defaultSubcommand: List.self)

    struct SuiteOptions: ParsableArguments {
        @OptionGroup var process: ProcessOptions
        @Option(help: "The application group.") var group: String
        @Option(help: "The suite (default: the group).") var suite: String?
        @Flag(help: "Print JSON.") var json = false

        func open() throws -> SharedDefaults {
            let group = try parseGroup(group)
            let keyring = try process.keyring()
            do throws(SharedDefaultsError) {
                return try SharedDefaults(suiteName: suite ?? group.rawValue, group: group, keyring: keyring)
            } catch {
                throw error  // CLIError.from gives it its exit status (storage: 6)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the keys with their types (values with --reveal) and any refused entries; exit 1 if any is refused.")
        @OptionGroup var options: SuiteOptions
        @Flag(help: "Show values.") var reveal = false

        func run() throws {
            let defaults = try options.open()
            let values = defaults.values()
            // Refused entries come from `entries()`, not `refusals()`: an entry whose record file
            // is gone can only be named by its record (the key is sealed inside the file), and
            // the listing must not show a record name as if it were a key.
            let refused: [(key: String?, record: String, error: VaultError)] = try defaults.entries().compactMap { entry in
                guard case .refused(let error) = entry.state else { return nil }
                return (entry.key, entry.recordName, error)
            }
            if options.json {
                let keys: [[String: DefaultsJSON]] = values.keys.sorted().map { key in
                    var row: [String: DefaultsJSON] = ["key": .string(key), "type": .string(values[key]!.typeName)]
                    if reveal { row["value"] = .value(values[key]!) }
                    return row
                }
                let refusedRows: [[String: DefaultsJSON]] = refused.map { entry in
                    var row: [String: DefaultsJSON] = [
                        "record": .string(entry.record), "code": .string(entry.error.code.rawValue),
                        "reason": .string(RemedyCommand.sentence(entry.error.reason, remedy: entry.error.nearestRemedy)),
                    ]
                    if let key = entry.key { row["key"] = .string(key) }
                    return row
                }
                try printJSON(["suite": .string(defaults.suiteName), "group": .string(defaults.group.rawValue), "keys": .array(keys.map(DefaultsJSON.object)), "refused": .array(refusedRows.map(DefaultsJSON.object))])
            } else {
                if values.isEmpty && refused.isEmpty { print("no keys") }
                if !values.isEmpty {
                    var table = reveal ? Table("KEY", "TYPE", "VALUE") : Table("KEY", "TYPE")
                    for key in values.keys.sorted() {
                        let value = values[key]!
                        if reveal {
                            table.add(try literal(key), value.description, try userForm(value))
                        } else {
                            table.add(try literal(key), value.description)
                        }
                    }
                    table.print()
                }
                for entry in refused {
                    let name = try entry.key.map(literal) ?? "record \(Terminal.escaped(entry.record))"
                    print("\(name)  refused: \(entry.error.code.rawValue): \(RemedyCommand.sentence(entry.error.reason, remedy: entry.error.nearestRemedy))")
                }
            }
            if !refused.isEmpty { throw ExitCode(1) }
        }
    }

    struct Read: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "read", abstract: "Show a key's type (its value with --reveal); exit 4 if absent, 5 if refused.")
        @OptionGroup var options: SuiteOptions
        @Argument(help: "The key.") var key: String
        @Flag(help: "Show the value.") var reveal = false

        func run() throws {
            let defaults = try options.open()
            let value: SharedDefaults.Value?
            do {
                value = try defaults.value(forKey: key)
            } catch {
                if options.json {
                    try printJSON(["key": .string(key), "refused": .string(error.vaultError?.code.rawValue ?? error.code.rawValue), "reason": .string(RemedyCommand.sentence(error.reason, remedy: error.nearestRemedy))])
                } else {
                    print("\(try literal(key))  refused: \(error.code): \(RemedyCommand.sentence(error.reason, remedy: error.nearestRemedy))")
                }
                throw ExitCode(ExitStatus.refused.rawValue)
            }
            guard let value else {
                if options.json { try printJSON(["key": .string(key), "absent": .bool(true)]) } else { print("\(try literal(key))  absent") }
                throw ExitCode(ExitStatus.notFound.rawValue)
            }
            if options.json {
                var object: [String: DefaultsJSON] = ["key": .string(key), "type": .string(value.typeName)]
                if reveal { object["value"] = .value(value) }
                try printJSON(object)
            } else {
                print(reveal ? try userForm(value) : Terminal.escaped(value.description))
            }
        }
    }

    struct Write: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "write", abstract: "Store a value for a key.")
        @OptionGroup var options: SuiteOptions
        @Argument(help: "The key.") var key: String
        @Argument(help: "The value, read as --type says.") var value: String
        @Option(help: "string, int, real, bool, date (ISO 8601), url, data (base64), or json (SharedDefaults' sealed JSON form).")
        var type: String = "string"

        func run() throws {
            let defaults = try options.open()
            let parsed = try parse(value, as: type)
            do {
                try defaults.set(parsed, forKey: key)
            } catch {
                throw error  // CLIError.from gives it its exit status (storage: 6)
            }
            if options.json { try printJSON(["key": .string(key), "type": .string(parsed.typeName), "stored": .bool(true)]) } else { print("stored \(try literal(key)) (\(parsed.description))") }
        }

        private func parse(_ text: String, as type: String) throws -> SharedDefaults.Value {
            func invalid() -> ValidationError { ValidationError("\(text.debugDescription) is not a valid \(type)") }
            switch type {
            case "string": return .string(text)
            case "int": guard let value = Int(text) else { throw invalid() }; return .integer(value)
            case "real": guard let value = Double(text) else { throw invalid() }; return .real(value)
            case "bool":
                switch text.lowercased() {
                case "true", "yes", "1": return .bool(true)
                case "false", "no", "0": return .bool(false)
                default: throw invalid()
                }
            case "date": guard let value = try? Date(text, strategy: .iso8601) else { throw invalid() }; return .date(value)
            case "url": guard let value = URL(string: text), value.scheme != nil else { throw invalid() }; return .url(value)
            case "data": guard let value = Data(base64Encoded: text) else { throw invalid() }; return .data(value)
            case "json":
                guard let value = try? JSONDecoder().decode(SharedDefaults.Value.self, from: Data(text.utf8)) else { throw invalid() }
                return value
            default: throw ValidationError("--type is one of string, int, real, bool, date, url, data, json")
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Remove a key (a sealed tombstone takes its place).")
        @OptionGroup var options: SuiteOptions
        @Argument(help: "The key.") var key: String

        func run() throws {
            do {
                try options.open().removeObject(forKey: key)
            } catch let error as SharedDefaultsError {
                throw error  // CLIError.from gives it its exit status (storage: 6)
            }
            if options.json { try printJSON(["key": .string(key), "removed": .bool(true)]) } else { print("removed \(try literal(key))") }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import an Apple-style preferences plist (XML or binary) into the suite, then remove it.",
            discussion: "Keys the suite already holds keep their values. The file is removed only when every key was imported or kept. Exit 1 when a key was skipped.")
        @OptionGroup var options: SuiteOptions
        @Option(help: "The plist (default: ~/Library/Preferences/<suite>.plist).") var file: String?
        @Flag(name: .customLong("dry-run"), help: "Only list what would move.") var dryRun = false

        func run() throws {
            let defaults = try options.open()
            let url = file.map { URL(fileURLWithPath: $0) } ?? SharedDefaults.applePreferencesURL(suiteName: defaults.suiteName)
            let result: PreferencesImport
            do {
                result = try defaults.importPreferences(from: url, dryRun: dryRun)
            } catch {
                throw error  // CLIError.from gives it its exit status (storage: 6)
            }
            if options.json {
                try printJSON([
                    "file": .string(url.path), "dryRun": .bool(result.isDryRun), "fileRemoved": .bool(result.fileRemoved),
                    "moved": .array(result.moved.keys.sorted().map(DefaultsJSON.string)),
                    "kept": .array(result.kept.map(DefaultsJSON.string)),
                    "skipped": .object(result.skipped.mapValues(DefaultsJSON.string)),
                ])
            } else {
                let verb = dryRun ? "would move" : "moved"
                for key in result.moved.keys.sorted() { print("\(verb) \(try literal(key)) (\(Terminal.escaped(result.moved[key]!.description)))") }
                for key in result.kept { print("kept \(try literal(key)) (the suite already holds it)") }
                for key in result.skipped.keys.sorted() { print("skipped \(try literal(key)): \(Terminal.escaped(result.skipped[key]!))") }
                let file = Terminal.escaped(url.path)
                if !dryRun { print(result.fileRemoved ? "removed \(file)" : "kept \(file): some keys were not imported") }
            }
            if !result.skipped.isEmpty { throw ExitCode(1) }
        }
    }
}

/// A JSON document to print, built from plain values and suite values (records show has its own
/// `JSONValue`, which decodes any payload; this one only encodes).
private indirect enum DefaultsJSON: Encodable {
    case string(String)
    case bool(Bool)
    case value(SharedDefaults.Value)
    case array([DefaultsJSON])
    case object([String: DefaultsJSON])

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .value(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let values): try container.encode(values)
        }
    }
}

/// `object` as one line of JSON, terminal-safe (``JSONOutput/terminalSafe(_:)``).
private func printJSON(_ object: [String: DefaultsJSON]) throws {
    print(try JSONOutput.encodeLine(DefaultsJSON.object(object)))
}

/// A key as a JSON string literal: quotes, control characters, C1 controls, bidirectional and
/// other invisible characters escaped.
private func literal(_ key: String) throws -> String {
    try JSONOutput.encodeLine(key)
}

/// A value as a person writes it, terminal-safe: `30`, `true`, `"dark"` (a string as a JSON
/// literal, so its ends and any escapes are visible), a date in ISO 8601, a URL, data as
/// base64, arrays and dictionaries as plain JSON of those. `--json` keeps the tagged form
/// (`{"int":30}`), which is exact (an integer stays distinct from a real, data from a
/// string) and is what `defaults write --type json` reads.
private func userForm(_ value: SharedDefaults.Value) throws -> String {
    switch value {
    case .bool(let value): return String(value)
    case .integer(let value): return String(value)
    case .real(let value): return String(value)
    case .date(let value): return value.formatted(.iso8601)
    case .url(let value): return Terminal.escaped(value.absoluteString)
    case .data(let value): return "base64:\(value.base64EncodedString())"
    case .string, .array, .dictionary: return try JSONOutput.encodeLine(PlainValue(value))
    }
}

/// A suite value as plain JSON: strings, numbers, booleans, arrays and objects (dates as ISO
/// 8601 strings, URLs as strings, data as base64 strings).
private struct PlainValue: Encodable {
    let value: SharedDefaults.Value

    init(_ value: SharedDefaults.Value) {
        self.value = value
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch value {
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .real(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .date(let value): try container.encode(value.formatted(.iso8601))
        case .url(let value): try container.encode(value.absoluteString)
        case .data(let value): try container.encode(value.base64EncodedString())
        case .array(let values): try container.encode(values.map(PlainValue.init))
        case .dictionary(let values): try container.encode(values.mapValues(PlainValue.init))
        }
    }
}
