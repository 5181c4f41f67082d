import Foundation
import Keyring

let token = ProcessInfo.processInfo.environment["API_TOKEN"] ?? "example-token"
let keyring = try Keyring.fromEnvironment()
try keyring.add(KeychainItem(service: "api.example.com", account: "ada",
                             secret: Data(token.utf8), accessibility: .afterFirstUnlock))
let item = try keyring.item(matching: ItemQuery(service: "api.example.com", account: "ada"))
print(item)   // attributes only: secrets never appear in descriptions
