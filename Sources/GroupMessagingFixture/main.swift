import FixtureSupport
import Foundation

// A child process for GroupMessaging's multi-process tests, separate from GroupVaultFixture so
// that SwiftNIO stays out of the Vault and Keyring test binaries.
// Usage: GroupMessagingFixture <command> [--option value]...
// Identity: an application group from --group (team ABCDE12345 unless --team), bundle from
// --bundle; home from GROUPVAULT_HOME. Usage errors exit 64, failures 1.
// A peer that closes mid-write must show up as a write error, not kill the process.
signal(SIGPIPE, SIG_IGN)
let commandLine = Array(CommandLine.arguments.dropFirst())
let commands = [notificationCommands, channelCommands, sharedObjectCommands, plantCommands]
    .reduce(into: [String: FixtureCommand]()) { all, area in all.merge(area) { first, _ in first } }
guard let name = commandLine.first, let command = commands[name] else {
    printError("usage: GroupMessagingFixture <\(commands.keys.sorted().joined(separator: "|"))> ...")
    exit(64)
}
exit(await command(Array(commandLine.dropFirst())))
