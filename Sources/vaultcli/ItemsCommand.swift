import ArgumentParser
import Foundation
import Keyring

/// `vaultcli items`: list keychain items (attributes only) the identity can reach.
struct ItemsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "items",
        abstract: "List the keychain items this identity can reach. Secrets are never printed.")

    @OptionGroup var process: ProcessOptions

    @Option(help: "Only this access group (default: every entitled group).")
    var group: String?

    @Option(help: "Only items with this service.")
    var service: String?

    @Option(help: "Only items with this account.")
    var account: String?

    @Flag(help: "Include synchronizable items.")
    var includeSynchronizable = false

    func run() throws {
        let keyring = try process.keyring()
        var query = ItemQuery(service: service, account: account, synchronizable: includeSynchronizable ? .any : .no)
        query.accessGroup = try group.map(parseGroup)
        var found = 0
        for itemClass in ItemClass.allCases {
            query.itemClass = itemClass
            for item in try keyring.items(matching: query, includingSecrets: false) {
                found += 1
                let fields = [
                    "class=\(item.itemClass.rawValue)",
                    "group=\(item.accessGroup?.rawValue ?? "-")",
                    item.service.map { "service=\($0)" }, item.server.map { "server=\($0)" },
                    item.account.map { "account=\($0)" }, item.label.map { "label=\($0)" },
                    "accessible=\(item.accessibility.rawValue)",
                    item.isSynchronizable ? "synchronizable" : nil,
                ].compactMap { $0 }
                print(fields.joined(separator: "  "))
            }
        }
        if found == 0 { print("no items") }
    }
}
