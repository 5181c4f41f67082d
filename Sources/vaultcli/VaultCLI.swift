import ArgumentParser

/// `vaultcli`: inspect and maintain a GroupVault home from the shell.
@main
struct VaultCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vaultcli",
        abstract: "Inspect and maintain GroupVault keyrings, keysets and sealed records.",
        discussion: """
            Acts as the process identity from GROUPVAULT_ENTITLEMENTS, GROUPVAULT_TEAM_ID and
            GROUPVAULT_BUNDLE_ID over the storage at GROUPVAULT_HOME, like any GroupVault process;
            the options below override them. Secrets are never printed.
            """,
        version: "0.1.0",
        subcommands: [IdentityCommand.self, LockStateCommand.self, ItemsCommand.self, KeysCommand.self, RecordsCommand.self, DefaultsCommand.self]
    )
}
