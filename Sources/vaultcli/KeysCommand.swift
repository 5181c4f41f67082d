import ArgumentParser
import Keyring

/// `vaultcli keys`: list, rotate and retire the keys of a group's keyset.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "List, rotate and retire a group's keys (key bytes are never printed).",
        subcommands: [List.self, Rotate.self, Retire.self],
        defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the keys of a group's keyset.")
        @OptionGroup var process: ProcessOptions
        @Option(help: "The access group.") var group: String

        func run() throws {
            let keys = try process.keyring().keys(in: try parseGroup(group))
            if keys.isEmpty { print("no keys yet (the first write creates key #1)") }
            for key in keys { print(key) }
        }
    }

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a new primary key; older keys still open existing records.",
            discussion: "Follow with `vaultcli records reseal` before retiring the old key.")
        @OptionGroup var process: ProcessOptions
        @Option(help: "The access group.") var group: String

        func run() throws {
            print("new primary: \(try process.keyring().rotateKey(in: try parseGroup(group)))")
        }
    }

    struct Retire: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Erase a non-primary key; records still sealed with it become unreadable.")
        @OptionGroup var process: ProcessOptions
        @Option(help: "The access group.") var group: String
        @Option(help: "The key id to retire.") var id: UInt32

        func run() throws {
            try process.keyring().retireKey(id: id, in: try parseGroup(group))
            print("retired key #\(id)")
        }
    }
}
