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
//   GroupVaultChild vault-writes HOME COUNT
//                                      COUNT `.full` writes of one 1 KiB record, then exits
//   GroupVaultChild keyring-adds HOME COUNT
//                                      COUNT adds of items with a 1 KiB secret, then exits
//
// The last two are the durable writes alone, for the system-call counts (run under strace).
//
// Exit status 0 on success; otherwise 1, with the reason on standard error.

/// Writes `message` and a newline to standard error, without Foundation's FileHandle.
func complain(_ message: String) {
    let bytes = Array((message + "\n").utf8)
    _ = write(STDERR_FILENO, bytes, bytes.count)
}

/// A positive count from the command line.
func count(_ argument: String) throws -> Int {
    guard let value = Int(argument), value > 0 else { throw UsageError(message: "COUNT must be a positive integer, not \(argument)") }
    return value
}

/// A command line the child cannot run.
struct UsageError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
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
    case ("vault-writes", 3):
        let home = URL(fileURLWithPath: arguments[arguments.startIndex + 1])
        let vault = try Vault(keyring: BenchHome.keyring(root: home), group: BenchHome.group, durability: .full)
        let record = BenchRecord.make(index: 0)
        for _ in 0..<(try count(arguments[arguments.startIndex + 2])) {
            _ = try vault.write(record, to: BenchHome.recordName(0))
        }
    case ("keyring-adds", 3):
        let keyring = BenchHome.keyring(root: URL(fileURLWithPath: arguments[arguments.startIndex + 1]))
        for index in 0..<(try count(arguments[arguments.startIndex + 2])) {
            _ = try keyring.add(KeychainItem(
                service: "bench.example.com", account: "account-\(index)", accessGroup: BenchHome.group,
                secret: Data(repeating: UInt8(truncatingIfNeeded: index), count: 1024)))
        }
    case ("reseal-all", 2):
        let home = URL(fileURLWithPath: arguments[arguments.startIndex + 1])
        let vault = try Vault(keyring: BenchHome.keyring(root: home), group: BenchHome.group)
        print(try vault.resealAll())
    default:
        complain("usage: GroupVaultChild read HOME NAME | lookup HOME SERVICE ACCOUNT | reseal-all HOME | vault-writes HOME COUNT | keyring-adds HOME COUNT")
        exit(2)
    }
} catch let error as UsageError {
    complain("GroupVaultChild: \(error)")
    exit(2)
} catch {
    complain("GroupVaultChild: \(error)")
    exit(1)
}
