import ArgumentParser
import Keyring

/// `vaultcli identity`: who this process is and which groups it can reach.
struct IdentityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity",
        abstract: "Show the process identity, its access groups in order, and its group containers.")

    @OptionGroup var process: ProcessOptions
    @OptionGroup var output: OutputOptions

    /// The `--json` shape (docs/CLI.md).
    struct Report: Encodable {
        struct ApplicationGroup: Encodable {
            var group: String
            var container: String?
        }
        var teamID: String?
        var bundleID: String?
        var applicationIdentifier: String?
        var home: String
        var accessGroups: [String]
        var applicationGroups: [ApplicationGroup]
    }

    func run() throws {
        let keyring = try process.keyring()
        let identity = keyring.identity
        let report = Report(
            teamID: identity.teamID,
            bundleID: identity.bundleID,
            applicationIdentifier: identity.applicationIdentifier?.rawValue,
            home: keyring.home.root.path,
            accessGroups: identity.accessGroups.map(\.rawValue),
            applicationGroups: identity.applicationGroups.map { group in
                .init(group: group.rawValue, container: keyring.containerLocation(for: group)?.path)
            })
        try output.emit(report) {
            var summary = Table("FIELD", "VALUE")
            summary.add("team id", report.teamID ?? "(none)")
            summary.add("bundle id", report.bundleID ?? "(none)")
            summary.add("application id", report.applicationIdentifier ?? "(none)")
            summary.add("home", report.home)
            summary.print()
            print("")
            var groups = Table("ACCESS GROUP", "NOTE")
            for (index, group) in report.accessGroups.enumerated() {
                groups.add(group, index == 0 ? "default for new items" : "")
            }
            groups.print()
            print("")
            var containers = Table("APPLICATION GROUP", "CONTAINER")
            for group in report.applicationGroups { containers.add(group.group, group.container ?? "(none)") }
            containers.print()
        }
    }
}
