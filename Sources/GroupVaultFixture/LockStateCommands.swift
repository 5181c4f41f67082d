import FixtureSupport
import Foundation
import Keyring

/// Lock-state commands for multi-process tests: another process changing the state, as
/// `vaultcli lock` and `vaultcli lock-state set` do. The home comes from `GROUPVAULT_HOME`
/// (and, in passphrase mode, the runtime directory from `XDG_RUNTIME_DIR`).
///
/// - `home-lock`: locks a home in passphrase mode (``KeyringHome/lock()``); prints `locked`.
/// - `home-set-lock-state <state>`: sets the emulated lock state of a home without a
///   passphrase (``KeyringHome/setLockState(_:)``); prints the state.
///
/// Exit status: 0 on success, 1 when the keyring refused (the reason on standard error), 64
/// for bad arguments.
let lockStateCommands: [String: FixtureCommand] = [
    "home-lock": { arguments in
        guard arguments.isEmpty else {
            printError("usage: GroupVaultFixture home-lock")
            return 64
        }
        return runHomeCommand { home throws(KeyringError) in
            try home.lock()
            return "locked"
        }
    },
    "home-set-lock-state": { arguments in
        guard arguments.count == 1, let state = DeviceLockState(rawValue: arguments[0]) else {
            printError("usage: GroupVaultFixture home-set-lock-state <\(DeviceLockState.allCases.map(\.rawValue).joined(separator: "|"))>")
            return 64
        }
        return runHomeCommand { home throws(KeyringError) in
            try home.setLockState(state)
            return state.rawValue
        }
    },
]

/// Runs `body` on the home named by the environment and prints its line.
private func runHomeCommand(_ body: (KeyringHome) throws(KeyringError) -> String) -> Int32 {
    do {
        printLine(try body(try KeyringHome.fromEnvironment()))
        return 0
    } catch {
        printError("\(error)")
        return 1
    }
}
