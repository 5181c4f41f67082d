import ArgumentParser

@main
struct VaultCLI: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "vaultcli", abstract: "Inspect and maintain GroupVault keyrings and vaults.", version: "0.1.0")
}
