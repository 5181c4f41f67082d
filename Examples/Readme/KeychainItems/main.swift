import Foundation
import Keyring

let token = ProcessInfo.processInfo.environment["API_TOKEN"] ?? "example-token"
let keyring = try Keyring.fromEnvironment()
let query = ItemQuery(service: "api.example.com", account: "ada")
do {
    try keyring.add(KeychainItem(service: "api.example.com", account: "ada",
                                 secret: Data(token.utf8), accessibility: .afterFirstUnlock))
} catch {
    guard error.status == .duplicateItem else { throw error }   // typed: no cast needed
    var changes = ItemChanges()                                  // run again: replace the secret
    changes.secret = Data(token.utf8)
    try keyring.update(matching: query, with: changes)
}
let item = try keyring.item(matching: query)
print(item)   // attributes only: secrets never appear in descriptions
