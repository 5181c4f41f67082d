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
            Acts as the process identity from GROUPVAULT_ENTITLEMENTS, GROUPVAULT_TEAM_ID and
            GROUPVAULT_BUNDLE_ID over the storage at GROUPVAULT_HOME, like any GroupVault process;
            the options --entitlements, --team-id, --bundle-id and --home override them.
            Secrets and key bytes are printed only with --reveal. Every command takes --json.
            Exit codes: 0 ok, 1 findings, 2 usage, 3 no identity configured, 4 not found,
            5 refused, 6 failed (docs/CLI.md).
            """,
        version: "0.1.0",
        subcommands: commands
    )

    /// Runs the command and maps every error to one line on standard error and an
    /// ``ExitStatus``: ArgumentParser's own usage errors exit 2 (it would use 64), library
    /// errors are translated by ``CLIError``.
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

    /// `vaultcli <subcommand> --help` for the subcommand the user typed, from the arguments.
    private static func helpCommand(for error: any Error) -> String {
        var path = ["vaultcli"]
        var command: any ParsableCommand.Type = VaultCLI.self
        for argument in CommandLine.arguments.dropFirst() {
            guard let next = command.configuration.subcommands.first(where: { $0._commandName == argument }) else { break }
            path.append(argument)
            command = next
        }
        return (path + ["--help"]).joined(separator: " ")
    }

    private static func exit(with error: any Error) -> Never {
        if let failure = CLIError.from(error) {
            Terminal.printError(failure.message)
            Foundation.exit(failure.status.rawValue)
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
        Terminal.printError("\(reason) (see: \(helpCommand(for: error)))")
        Foundation.exit(code == .validationFailure ? ExitStatus.usage.rawValue : code.rawValue)
    }
}
