import BenchModel
import Foundation
import Vault

// The benchmark's child process, a real separate process as a widget or `vaultcli` is:
//
//   GroupVaultChild read HOME NAME     reads one record and exits (the cold-read figure)
//   GroupVaultChild reseal-all HOME    runs Vault.resealAll() and prints how many it resealed
//
// Exit status 0 on success; otherwise 1, with the reason on standard error.

let arguments = CommandLine.arguments.dropFirst()
do {
    switch (arguments.first, arguments.count) {
    case ("read", 3):
        let home = URL(fileURLWithPath: arguments[arguments.startIndex + 1])
        let vault = try Vault(keyring: BenchHome.keyring(root: home), group: BenchHome.group)
        let record = try vault.read(BenchRecord.self, name: arguments[arguments.startIndex + 2])
        print(record.index)
    case ("reseal-all", 2):
        let home = URL(fileURLWithPath: arguments[arguments.startIndex + 1])
        let vault = try Vault(keyring: BenchHome.keyring(root: home), group: BenchHome.group)
        print(try vault.resealAll())
    default:
        FileHandle.standardError.write(Data("usage: GroupVaultChild read HOME NAME | reseal-all HOME\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("GroupVaultChild: \(error)\n".utf8))
    exit(1)
}
