import GroupSync   // product "GroupSync" (postgres-nio)
import Keyring

// The note opened last, on every machine of the group: set it with an argument, read it without.
let keyring = try Keyring.fromEnvironment()
let group = try GroupIdentifier(validating: "group.com.example.notes")
let store = try UbiquitousKeyValueStore(group: group, keyring: keyring)   // needs the entitlement

if let note = CommandLine.arguments.dropFirst().first {
    store.set(note, forKey: "lastOpenedNote")   // durable on this machine before it returns
}
// With GROUPVAULT_SYNC_URL set, exchange with the server now: this machine's writes go up,
// the other machines' come down, and a row the server rolled back, altered or moved is refused.
if store.configuration != nil {
    try await store.synchronizeWithServer()
}
print("last opened note: \(store.string(forKey: "lastOpenedNote") ?? "none")")
for (reason, count) in store.status.refusals { print("refused from the server: \(count) × \(reason)") }
