import Foundation
import Keyring

/// The vaultcli command that carries out a library error's ``ErrorRemedy``: what a person at
/// the shell types for what the library says as a value.
///
/// The library's reasons say the fix in words and name no front end; the remedy is what this
/// maps, never the reason's text, so rewording a reason cannot lose a hint. A remedy with no
/// command here (free space, retry, restore a file) is said by the reason alone.
struct RemedyCommand: Equatable {
    /// How the message says it, e.g. `run: vaultcli keys rotate --group G`.
    let hint: String
    /// The command itself, for the `remedy` of a `--json` error.
    let command: String

    /// The command for `remedy`, or `nil` when vaultcli has none for it.
    init?(_ remedy: ErrorRemedy) {
        switch remedy.kind {
        case .unlock:
            // A home with a passphrase is unlocked with it; one without has an emulated state,
            // which is set (and `lock-state` is refused in passphrase mode).
            let emulated = remedy.path.map { (try? KeyringHome(root: URL(fileURLWithPath: $0)).isPassphraseProtected()) == false } ?? false
            self.init(run: emulated ? ShellCommand("vaultcli", "lock-state", "unlocked") : ShellCommand("vaultcli", "unlock"))
        case .lock:
            self.init(run: ShellCommand("vaultcli", "lock"))
        case .importKey:
            guard let group = remedy.group else { return nil }
            let id = remedy.keyID.map(String.init) ?? "ID"
            self.init(run: ShellCommand("vaultcli", "keys", "import", "--group", group, "--id", id, "--reveal"))
        case .createKey:
            guard let group = remedy.group, let line = ShellCommand("vaultcli", "keys", "create", "--group", group).line else { return nil }
            self.init(hint: "the first record written creates one; or: \(line)", command: line)
        case .rotateKey:
            guard let group = remedy.group else { return nil }
            self.init(run: ShellCommand("vaultcli", "keys", "rotate", "--group", group))
        case .resealRecords:
            guard let group = remedy.group else { return nil }
            self.init(run: ShellCommand("vaultcli", "records", "reseal", "--group", group))
        case .grantEntitlement:
            // Entitlements are a file vaultcli does not write; `identity` shows what it grants.
            self.init(hint: "see: vaultcli identity", command: "vaultcli identity")
        case .runCommand:
            guard let command = remedy.command else { return nil }
            self.init(hint: "run: \(command)", command: command)
        default:
            return nil
        }
    }

    private init?(run command: ShellCommand) {
        guard let line = command.line else { return nil }
        self.init(hint: "run: \(line)", command: line)
    }

    init(hint: String, command: String) {
        self.hint = hint
        self.command = command
    }

    /// `reason` as one escaped line, followed by the command for `remedy` when there is one:
    /// how every library error reaches the terminal.
    static func sentence(_ reason: String, remedy: ErrorRemedy?) -> String {
        // Escaped apart, so a long reason cut at the limit still ends with its command.
        let hint = remedy.flatMap(RemedyCommand.init).map { " (\(Terminal.escaped($0.hint)))" } ?? ""
        return Terminal.escaped(reason) + hint
    }
}
