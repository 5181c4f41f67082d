import ArgumentParser
import Keyring

extension DeviceLockState: ExpressibleByArgument {}

/// `vaultcli lock-state [state]`: read or set the emulated device lock state of the home.
struct LockStateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock-state",
        abstract: "Show or set the emulated device lock state shared by every process of the home.",
        discussion: "States: beforeFirstUnlock, locked, unlocked. A new home is unlocked.")

    @OptionGroup var process: ProcessOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "The state to set; omit to show the current one.")
    var state: DeviceLockState?

    /// The `--json` shape.
    struct Report: Encodable {
        var state: String
    }

    func run() throws {
        let home = try process.keyringHome()
        if let state {
            try home.setLockState(state)
        }
        let current = try home.lockState()
        try output.emit(Report(state: current.rawValue)) { print(current) }
    }
}
