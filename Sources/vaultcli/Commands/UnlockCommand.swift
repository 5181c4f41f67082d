import ArgumentParser
import Keyring

/// `vaultcli unlock`: unwrap the unlock key and the master secret of a passphrase-mode home
/// into the runtime directory, so the home is unlocked until `vaultcli lock`, logout or reboot.
struct UnlockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Unlock a passphrase-protected home until `vaultcli lock`, logout or reboot.",
        discussion: """
            Writes the unwrapped keys (mode 0600) to $XDG_RUNTIME_DIR/groupvault/, which must \
            be a directory you own with mode 0700. A wrong passphrase is refused after one full \
            Argon2id derivation. A wrap made with a lower cost than today's is rewrapped.
            """)

    @OptionGroup var process: ProcessOptions
    @OptionGroup var passphrase: PassphraseInput
    @OptionGroup var output: OutputOptions

    /// The `--json` shape of `unlock`, `lock` and `passphrase`.
    struct Report: Encodable {
        var state: String
        var upgraded: Bool?
    }

    func run() throws {
        let home = try process.keyringHome()
        let upgraded = try home.unlock(passphrase: try passphrase.read(prompts: ["Passphrase: "])[0], parameters: passphrase.cost.parameters)
        let state = try home.lockState()
        try output.emit(Report(state: state.rawValue, upgraded: upgraded)) {
            print(state)
            if upgraded { print("the wrapped master key was rewrapped with today's Argon2id cost") }
        }
    }
}

/// `vaultcli lock`: lock a passphrase-protected home.
struct LockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "Lock a passphrase-protected home: WhenUnlocked items cannot be decrypted until `vaultcli unlock`.")

    @OptionGroup var process: ProcessOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let home = try process.keyringHome()
        try home.lock()
        let state = try home.lockState()
        try output.emit(UnlockCommand.Report(state: state.rawValue)) { print(state) }
    }
}
