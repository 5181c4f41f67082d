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

    /// `error` as the CLI reports it: the library's reason, then the vaultcli command for the
    /// error's remedy (or its nearest cause's), which `--json` reports as `remedy`.
    static func from(_ error: any Error) -> CLIError? {
        switch error {
        case let error as CLIError:
            return error
        case let error as KeyringError:
            return CLIError(status(of: error.status), "", error.reason, error.nearestRemedy)
        case let error as VaultError:
            return CLIError(status(of: error.code), "\(error.code): ", error.reason, error.nearestRemedy)
        case let error as SharedDefaultsError:
            if let vaultError = error.vaultError, error.code == .refused || error.code == .storage {
                return CLIError(status(of: vaultError.code), "\(error.code): ", error.reason, error.nearestRemedy)
            }
            return CLIError(status(of: error.code), "\(error.code): ", error.reason, error.nearestRemedy)
        case let error as GroupMessagingError:
            return CLIError(status(of: error.code), "\(error.code.rawValue): ", error.reason, error.nearestRemedy)
        default:
            return nil
        }
    }

    /// A library error's line: `prefix`, the reason and the remedy's command.
    private init(_ status: ExitStatus, _ prefix: String, _ reason: String, _ remedy: ErrorRemedy?) {
        self.init(status, prefix + RemedyCommand.sentence(reason, remedy: remedy), remedy: remedy.flatMap(RemedyCommand.init)?.command)
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
