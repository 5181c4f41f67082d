import ArgumentParser
import Foundation
import GroupMessaging
import Keyring

/// `vaultcli notify post|watch`: Darwin-style notifications of an application group, for
/// debugging the processes that post and observe them.
struct NotifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Post or watch notifications of an application group (no payload, no daemon).",
        subcommands: [Post.self, Watch.self])

    /// Options shared by both subcommands.
    struct Target: ParsableArguments {
        @OptionGroup var process: ProcessOptions

        @Option(help: "The application group.")
        var group: String

        @Flag(help: "Print one JSON object per line instead of text.")
        var json = false

        func center() throws -> GroupNotificationCenter {
            let keyring = try process.keyring()
            let group = try parseGroup(group)
            return try GroupNotificationCenter(keyring: keyring, group: group)
        }

        func report(_ event: String, _ name: String, group: GroupIdentifier) {
            if json {
                printJSONLine(["event": event, "name": name, "group": group.rawValue])
            } else {
                printEscapedLine("\(event) \(name) in \(group)")
            }
        }
    }

    /// `vaultcli notify post <name>`.
    struct Post: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "post", abstract: "Wake every process of the group observing <name>.")

        @OptionGroup var target: Target
        @Argument(help: "The notification name (ASCII letters, digits, '-', '.', '_').")
        var name: String

        func run() async throws {
            let center = try target.center()
            try center.post(name)
            target.report("posted", name, group: center.group)
        }
    }

    /// `vaultcli notify watch <name>`.
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Print a line for each wake-up for <name> (bursts may coalesce into one).",
            discussion: "Prints 'watching' once the watch is in place; runs until killed or --count wake-ups.")

        @OptionGroup var target: Target
        @Argument(help: "The notification name.")
        var name: String
        @Option(help: "Exit after this many wake-ups.")
        var count: Int?

        func run() async throws {
            let center = try target.center()
            let notifications = try center.notifications(named: name)
            target.report("watching", name, group: center.group)
            var seen = 0
            for await _ in notifications {
                seen += 1
                target.report("woken", name, group: center.group)
                if let count, seen >= count { return }
            }
        }
    }
}

/// Writes `object` as one line of JSON with sorted keys, terminal-safe
/// (``JSONOutput/terminalSafe(_:)``), flushed at once.
func printJSONLine<Value: Encodable>(_ object: Value) {
    guard let line = try? JSONOutput.encodeLine(object) else { return }
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Writes `text` as one line, every character a terminal would act on escaped, flushed at once
/// (a line of `channel serve` may name what a peer sent).
func printEscapedLine(_ text: String) {
    FileHandle.standardOutput.write(Data((Terminal.escaped(text) + "\n").utf8))
}
