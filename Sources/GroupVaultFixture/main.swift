import Foundation

// A child process for multi-process tests. Usage: GroupVaultFixture <command> [arguments...]
// Commands live in one file per area (KeyringCommands.swift, VaultCommands.swift); each returns
// the process exit status. Storage and identity come from the environment (GROUPVAULT_HOME, ...).
let commandLine = Array(CommandLine.arguments.dropFirst())
let commands = keyringCommands.merging(vaultCommands) { first, _ in first }
guard let name = commandLine.first, let command = commands[name] else {
    FileHandle.standardError.write(Data("usage: GroupVaultFixture <\(commands.keys.sorted().joined(separator: "|"))> ...\n".utf8))
    exit(64)
}
exit(command(Array(commandLine.dropFirst())))
