import BenchModel
#if canImport(FoundationEssentials)
// Only what the read path needs, so the cold-read child loads no more of Foundation than
// GroupVault itself does.
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Keyring
import Vault

// The benchmark's child process, a real separate process as a widget or `vaultcli` is:
//
//   GroupVaultChild read HOME NAME     reads one record and exits (the cold-read figure)
//   GroupVaultChild lookup HOME SERVICE ACCOUNT
//                                      looks one item up and exits (the cold-lookup figure)
//   GroupVaultChild reseal-all HOME    runs Vault.resealAll() and prints how many it resealed
//
// Exit status 0 on success; otherwise 1, with the reason on standard error.

/// Writes `message` and a newline to standard error, without Foundation's FileHandle.
func complain(_ message: String) {
    let bytes = Array((message + "\n").utf8)
    _ = write(STDERR_FILENO, bytes, bytes.count)
}

let arguments = CommandLine.arguments.dropFirst()
do {
    switch (arguments.first, arguments.count) {
    case ("read", 3):
        let home = URL(fileURLWithPath: arguments[arguments.startIndex + 1])
        let vault = try Vault(keyring: BenchHome.keyring(root: home), group: BenchHome.group)
        let record = try vault.read(BenchRecord.self, from: arguments[arguments.startIndex + 2])
        print(record.index)
    case ("lookup", 4):
        let home = URL(fileURLWithPath: arguments[arguments.startIndex + 1])
        let item = try BenchHome.keyring(root: home).item(matching: ItemQuery(
            service: arguments[arguments.startIndex + 2], account: arguments[arguments.startIndex + 3], accessGroup: BenchHome.group))
        print(item.secret.count)
    case ("reseal-all", 2):
        let home = URL(fileURLWithPath: arguments[arguments.startIndex + 1])
        let vault = try Vault(keyring: BenchHome.keyring(root: home), group: BenchHome.group)
        print(try vault.resealAll())
    default:
        complain("usage: GroupVaultChild read HOME NAME | lookup HOME SERVICE ACCOUNT | reseal-all HOME")
        exit(2)
    }
} catch {
    complain("GroupVaultChild: \(error)")
    exit(1)
}
