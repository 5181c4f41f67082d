import ArgumentParser
import Keyring

/// `vaultcli passphrase set|change`: put a home in passphrase mode, or rewrap its master secret.
struct PassphraseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passphrase",
        abstract: "Protect the home's master secret with a passphrase (Argon2id), or change it.",
        discussion: """
            After `passphrase set` the home's secrets exist on disk only wrapped; the lock state
            is the machine's: `vaultcli unlock` and `vaultcli lock` change it (docs/CLI.md).
            """,
        subcommands: [Set.self, Change.self])

    /// Puts the home in passphrase mode; it stays unlocked.
    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Protect the home with a new passphrase; it is then in passphrase mode, unlocked.")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var passphrase: PassphraseInput
        @OptionGroup var output: OutputOptions

        func run() throws {
            let home = try process.keyringHome()
            let typed = try passphrase.read(prompts: passphrase.descriptor == nil ? ["New passphrase: ", "Repeat it: "] : ["new passphrase"])
            let new = typed[0]
            guard typed.allSatisfy({ $0.constantTimeEquals(new) }) else { throw CLIError(.refused, "the two passphrases differ: nothing was changed") }
            try home.setPassphrase(new, parameters: passphrase.cost.parameters)
            try output.emit(UnlockCommand.Report(state: try home.lockState().rawValue)) {
                print("passphrase set; \(home.root.path) is unlocked")
            }
        }
    }

    /// Rewraps the unlock key under a new passphrase.
    struct Change: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rewrap under a new passphrase (items, keys and records are unchanged).")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var passphrase: PassphraseInput
        @OptionGroup var output: OutputOptions

        func run() throws {
            let home = try process.keyringHome()
            let typed = try passphrase.read(prompts: passphrase.descriptor == nil
                ? ["Current passphrase: ", "New passphrase: ", "Repeat it: "] : ["current passphrase", "new passphrase"])
            let old = typed[0], new = typed[1]
            guard typed.dropFirst().allSatisfy({ $0.constantTimeEquals(new) }) else { throw CLIError(.refused, "the two passphrases differ: nothing was changed") }
            try home.changePassphrase(from: old, to: new, parameters: passphrase.cost.parameters)
            try output.emit(UnlockCommand.Report(state: try home.lockState().rawValue)) { print("passphrase changed") }
        }
    }
}
