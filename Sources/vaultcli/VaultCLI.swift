import ArgumentParser
import Foundation

/// `vaultcli`: inspect and maintain a GroupVault home from the shell.
@main
struct VaultCLI: AsyncParsableCommand {
    /// The top-level commands. Further areas (for example messaging) add their command type
    /// here, each defined in its own file.
    static let commands: [any ParsableCommand.Type] = [
        IdentityCommand.self,
        LockStateCommand.self,
        PassphraseCommand.self,
        UnlockCommand.self,
        LockCommand.self,
        ItemsCommand.self,
        KeysCommand.self,
        RecordsCommand.self,
        DoctorCommand.self,
        NotifyCommand.self,
        ChannelCommand.self,
        DefaultsCommand.self,
        SyncCommand.self,
    ]

    static let configuration = CommandConfiguration(
        commandName: "vaultcli",
        abstract: "Inspect and maintain GroupVault keyrings, keysets and sealed records.",
        discussion: """
            Acts as the process identity from GROUPVAULT_ENTITLEMENTS, GROUPVAULT_TEAM_ID and \
            GROUPVAULT_BUNDLE_ID over the storage at GROUPVAULT_HOME, like any GroupVault process; \
            the options --entitlements, --team-id, --bundle-id and --home override them. \
            Secrets and key bytes are printed only with --reveal. Every command takes --json. \
            Exit codes: 0 ok, 1 findings, 2 usage, 3 no identity configured, 4 not found, \
            5 refused, 6 failed (docs/CLI.md).
            """,
        version: "0.1.0",
        subcommands: commands
    )

    /// Runs the command and maps every error to one line on standard error (a JSON object with
    /// `--json`) and an ``ExitStatus``: ArgumentParser's own usage errors exit 2 (it would use
    /// 64) and suggest a subcommand for a typo, library errors are translated by ``CLIError``.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(with: error)
        }
    }

    /// The subcommands the user typed that exist, and the first word after them that names
    /// no subcommand where one was expected (a typo such as `item`), if any.
    private static func typedCommandPath() -> (path: [String], unknown: String?, candidates: [String]) {
        var path = ["vaultcli"]
        var command: any ParsableCommand.Type = VaultCLI.self
        for argument in CommandLine.arguments.dropFirst() {
            let subcommands = command.configuration.subcommands
            guard let next = subcommands.first(where: { $0._commandName == argument }) else {
                let expectsSubcommand = !subcommands.isEmpty && !argument.hasPrefix("-")
                return (path, expectsSubcommand ? argument : nil, subcommands.map { $0._commandName })
            }
            path.append(argument)
            command = next
        }
        return (path, nil, [])
    }

    /// `vaultcli <subcommand> --help` for the subcommand the user typed, from the arguments.
    private static func helpCommand() -> String {
        (typedCommandPath().path + ["--help"]).joined(separator: " ")
    }

    /// ` (did you mean 'items'?)` for a word that is one or two edits from a subcommand, or a
    /// prefix of exactly one; empty otherwise.
    private static func suggestion() -> String {
        let typed = typedCommandPath()
        guard let unknown = typed.unknown else { return "" }
        var best: (name: String, distance: Int)?
        for candidate in typed.candidates {
            let distance = CommandSuggestion.distance(unknown, candidate)
            if distance <= 2 && distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        let prefixed = typed.candidates.filter { $0.hasPrefix(unknown) }
        if best == nil && prefixed.count == 1 { best = (prefixed[0], 0) }
        guard let best else { return "" }
        return " (did you mean '\(best.name)'?)"
    }

    /// Whether the command line asked for `--json` (before a `--`, after which every word is
    /// an argument): errors are then JSON too.
    private static var jsonRequested: Bool {
        CommandLine.arguments.dropFirst().prefix { $0 != "--" }.contains("--json")
    }

    /// Writes the error line (or, with `--json`, the JSON error object) and exits with `status`.
    private static func fail(_ status: ExitStatus, _ message: String, remedy: String? = nil) -> Never {
        if jsonRequested {
            Terminal.printErrorJSON(ErrorReport(status: status, message: message, remedy: remedy))
        } else {
            Terminal.printError(message)
        }
        Foundation.exit(status.rawValue)
    }

    private static func exit(with error: any Error) -> Never {
        if let failure = CLIError.from(error) {
            fail(failure.status, failure.message, remedy: failure.remedy)
        }
        if let code = error as? ExitCode {
            Foundation.exit(code.rawValue)
        }
        let code = exitCode(for: error)
        let message = fullMessage(for: error)
        if code == .success {
            // --help and --version: the requested text, on standard output.
            print(message)
            Foundation.exit(0)
        }
        // Usage errors: one line saying what was wrong (ArgumentParser names the flag as typed),
        // and where the usage is; not the whole usage text, which would bury the error.
        let firstLine = message.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? message
        let reason = firstLine.hasPrefix("Error: ") ? String(firstLine.dropFirst("Error: ".count)) : firstLine
        let help = helpCommand()
        let status = code == .validationFailure ? ExitStatus.usage : ExitStatus(rawValue: code.rawValue) ?? .failed
        fail(status, "\(reason)\(suggestion()) (see: \(help))", remedy: help)
    }
}
