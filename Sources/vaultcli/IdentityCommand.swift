import ArgumentParser
import Keyring

/// `vaultcli identity`: who this process is and which groups it can reach.
struct IdentityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity",
        abstract: "Show the process identity, its access groups in order, and its group containers.")

    @OptionGroup var process: ProcessOptions

    func run() throws {
        let keyring = try process.keyring()
        let identity = keyring.identity
        print("team id:               \(identity.teamID ?? "-")")
        print("bundle id:             \(identity.bundleID ?? "-")")
        print("application id:        \(identity.applicationIdentifier?.rawValue ?? "-")")
        print("home:                  \(keyring.home.root.path)")
        print("access groups (first is the default for new items):")
        for group in identity.accessGroups { print("  \(group)") }
        print("application groups:")
        for group in identity.applicationGroups {
            let container = try keyring.containerURL(for: group)
            print("  \(group)  \(container?.path ?? "(no container)")")
        }
    }
}
