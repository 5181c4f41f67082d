import ArgumentParser
import Keyring

/// `vaultcli passphrase set|change`: put a home in passphrase mode, or rewrap its master secret.
struct PassphraseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passphrase",
        abstract: "Protect the home's master secret with a passphrase (Argon2id), or change it.",
        discussion: """
            After `passphrase set` the home's secrets exist on disk only wrapped; the lock state \
            is the machine's: `vaultcli unlock` and `vaultcli lock` change it (docs/CLI.md).
            """,
        subcommands: [Set.self, Change.self])

    /// Puts the home in passphrase mode; it stays unlocked.
    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Protect the home with a new passphrase; it is then in passphrase mode, unlocked.")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var passphrase: PassphraseInput
        @OptionGroup var output: OutputOptions

        func run() throws {
            let home = try process.keyringHome()
            try Self.checkBeforeAsking(home)
            let typed = try passphrase.read(prompts: passphrase.descriptor == nil ? ["New passphrase: ", "Repeat it: "] : ["new passphrase"])
            let new = typed[0]
            guard typed.allSatisfy({ $0.constantTimeEquals(new) }) else { throw CLIError(.refused, "the two passphrases differ: nothing was changed") }
            try home.setPassphrase(new, parameters: passphrase.cost.parameters)
            try output.emit(UnlockCommand.Report(state: try home.lockState().rawValue)) {
                print("passphrase set; \(Terminal.escaped(home.root.path)) is unlocked")
            }
        }

        /// What `setPassphrase` would refuse, checked before anyone types a passphrase twice
        /// for nothing: a shared home, a passphrase already set, an unusable `XDG_RUNTIME_DIR`.
        /// `setPassphrase` checks each again (the home may change in between); these are only
        /// so the refusal comes first.
        static func checkBeforeAsking(_ home: KeyringHome) throws {
            guard home.sharing == .ownerOnly else {
                throw CLIError(.refused, "passphrase mode needs an ownerOnly home: the members of a unixGroup home are different users, each with their own runtime directory (GROUPVAULT_SHARING is set)")
            }
            guard try !home.isPassphraseProtected() else {
                throw CLIError(.refused, "\(Terminal.escaped(home.root.path)) already has a passphrase: change it with vaultcli passphrase change", remedy: "vaultcli passphrase change")
            }
            // Vets XDG_RUNTIME_DIR (set, absolute, a directory of this user with mode 0700)
            // without creating anything in it.
            _ = try home.runtimeFiles(creating: false)
        }
    }

    /// Rewraps the unlock key under a new passphrase.
    struct Change: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "change",
            abstract: "Rewrap under a new passphrase (items, keys and records are unchanged).")
        @OptionGroup var process: ProcessOptions
        @OptionGroup var passphrase: PassphraseInput
        @OptionGroup var output: OutputOptions

        func run() throws {
            let home = try process.keyringHome()
            guard try home.isPassphraseProtected() else {
                throw CLIError(.notFound, "\(Terminal.escaped(home.root.path)) has no passphrase to change: set one with vaultcli passphrase set", remedy: "vaultcli passphrase set")
            }
            let typed = try passphrase.read(prompts: passphrase.descriptor == nil
                ? ["Current passphrase: ", "New passphrase: ", "Repeat it: "] : ["current passphrase", "new passphrase"])
            let old = typed[0], new = typed[1]
            guard typed.dropFirst().allSatisfy({ $0.constantTimeEquals(new) }) else { throw CLIError(.refused, "the two passphrases differ: nothing was changed") }
            try home.changePassphrase(from: old, to: new, parameters: passphrase.cost.parameters)
            try output.emit(UnlockCommand.Report(state: try home.lockState().rawValue)) { print("passphrase changed") }
        }
    }
}
