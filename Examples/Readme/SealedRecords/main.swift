import Foundation
import Keyring   // GroupIdentifier
import Vault

struct AuthState: VaultRecord {
    static let schemaVersion: UInt32 = 1
    var isAuthenticated: Bool
    var displayName: String?
}

let keyring = try Keyring.fromEnvironment()
let vault = try Vault(keyring: keyring, group: GroupIdentifier(validating: "group.com.example.notes"))
try vault.write(AuthState(isAuthenticated: true, displayName: "Ada"), to: "auth-state",
                expiresAt: Date().addingTimeInterval(3600))

// In the widget: the reason when it cannot be trusted...
do {
    let state = try vault.read(AuthState.self, from: "auth-state")
    print(state.displayName ?? "signed in")
} catch {
    print(error.code)   // .expired, .rollback, .authenticationFailed, ...
}
// ...or the simple path: nil means "treat as signed out".
let current = vault.readIfValid(AuthState.self, from: "auth-state") { refusal in print(refusal) }

let changes = try vault.changes(to: "auth-state")   // subscribed from here on: inotify, no polling
try vault.delete("auth-state")                         // a sign-out, in this or any process
for await change in changes { print(change); break }   // written auth-state
