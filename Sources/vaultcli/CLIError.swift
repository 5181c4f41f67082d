import ArgumentParser
import GroupMessaging
import Keyring
import SharedDefaults
import Vault

/// A failure reported to the person at the terminal: one line on standard error and an
/// ``ExitStatus``. Library errors are translated into it at the command boundary, so their
/// hints name `vaultcli` commands rather than Swift API.
struct CLIError: Error, CustomStringConvertible {
    var status: ExitStatus
    var message: String
    /// A command that fixes it, for `--json` errors (the message says it too).
    var remedy: String?

    init(_ status: ExitStatus, _ message: String, remedy: String? = nil) {
        self.status = status
        self.message = message
        self.remedy = remedy
    }

    var description: String { message }

    /// A usage error naming the flag as the user typed it.
    static func usage(_ message: String) -> CLIError { CLIError(.usage, message) }

    /// `error` as the CLI reports it.
    static func from(_ error: any Error) -> CLIError? {
        switch error {
        case let error as CLIError:
            return error
        case let error as KeyringError:
            return CLIError(status(of: error.status), CLIHints.translate(error.reason))
        case let error as VaultError:
            return CLIError(status(of: error.code), "\(error.code): \(CLIHints.translate(error.reason))")
        case let error as SharedDefaultsError:
            if let vaultError = error.vaultError, error.code == .refused || error.code == .storage {
                return CLIError(status(of: vaultError.code), "\(error.code): \(CLIHints.translate(error.reason))")
            }
            return CLIError(status(of: error.code), "\(error.code): \(CLIHints.translate(error.reason))")
        case let error as GroupMessagingError:
            return CLIError(status(of: error.code), "\(error.code.rawValue): \(CLIHints.translate(error.reason))")
        default:
            return nil
        }
    }

    private static func status(of status: KeyringStatus) -> ExitStatus {
        switch status {
        case .itemNotFound: .notFound
        case .missingEntitlement, .interactionNotAllowed, .duplicateItem, .userCanceled, .authenticationFailed,
             .invalidParameter, .dataTooLarge, .noSuchAttribute, .unimplemented:
            .refused
        default: .failed
        }
    }

    /// A malformed key, value or suite name is the command line's fault; a full suite, a
    /// refused record or a missing entitlement is a refusal; storage is a failure.
    private static func status(of code: SharedDefaultsError.Code) -> ExitStatus {
        switch code {
        case .invalidKey, .invalidSuiteName, .unsupportedValue: .usage
        case .storage: .failed
        default: .refused
        }
    }

    private static func status(of code: GroupMessagingError.Code) -> ExitStatus {
        switch code {
        case .invalidName: .usage
        case .notEntitled, .addressInUse, .protocolViolation, .invalidMessage: .refused
        default: .failed
        }
    }

    private static func status(of code: VaultError.Code) -> ExitStatus {
        switch code {
        case .notFound: .notFound
        case .invalidName, .invalidArgument: .usage
        case .storage, .notDurable: .failed
        default: .refused
        }
    }
}

/// Rewrites the library's hints, which name Swift API, into the vaultcli commands that do the
/// same (an operator at a shell cannot call `rotateKey(in:)`).
enum CLIHints {
    /// Library API named in reasons, and the command a CLI user runs instead.
    private static let replacements: [(String, String)] = [
        ("rotate first (rotateKey(in:))", "rotate first (vaultcli keys rotate --group <group>)"),
        ("rotateKey(in:)", "vaultcli keys rotate"),
        ("retireKey(id:in:)", "vaultcli keys retire"),
        ("groupKey(for:) creates one", "the first record written creates one"),
        ("KeyringHome.setLockState(.unlocked)", "vaultcli lock-state unlocked"),
        ("reseal data under the primary key", "reseal data under the primary key (vaultcli records reseal --group <group>)"),
    ]

    /// Operation prefixes such as `retireKey(id:in:): ` name the Swift call, not the command.
    private static let operationPrefixes = [
        "retireKey(id:in:): ", "rotateKey(in:): ", "keys(in:): ", "groupKey(for:): ", "key(id:in:): ",
        "exportKey(id:in:): ",
    ]

    static func translate(_ reason: String) -> String {
        var text = reason
        for prefix in operationPrefixes where text.hasPrefix(prefix) { text.removeFirst(prefix.count) }
        for (api, command) in replacements { text = text.replacingOccurrences(of: api, with: command) }
        // Some reasons quote the identity's debug description; a person needs only its name
        // (`vaultcli identity` shows the groups).
        text = text.replacing(/Identity\(([^,()]+), access groups: \[[^\]]*\], application groups: \[[^\]]*\]\)/) { match in
            "the identity \(match.1) (see: vaultcli identity)"
        }
        // Reasons may quote file names; a reason is one line on stderr, whatever it contains.
        return Terminal.escaped(text)
    }
}
