import FixtureSupport
import Foundation

/// A fixture command: takes its arguments, returns the process exit status.
typealias FixtureCommand = @Sendable ([String]) -> Int32

// A child process for multi-process tests. Usage: GroupVaultFixture <command> [arguments...]
// Commands live in one file per area; each returns the exit status. Storage comes from the
// environment (GROUPVAULT_HOME); identities are given as arguments or through the environment.
let commandLine = Array(CommandLine.arguments.dropFirst())
let commands = [itemCommands, keysetCommands, lockCommands, lockStateCommands, recordLockCommands, secItemCommands, secKeyItemCommands, vaultCommands]
    .reduce(into: [String: FixtureCommand]()) { all, area in all.merge(area) { first, _ in first } }
guard let name = commandLine.first, let command = commands[name] else {
    printError("usage: GroupVaultFixture <\(commands.keys.sorted().joined(separator: "|"))> ...")
    exit(64)
}
exit(command(Array(commandLine.dropFirst())))
