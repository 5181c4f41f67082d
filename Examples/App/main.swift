import Foundation
import GroupMessaging
import Keyring
import SharedDefaults
import Vault
import ExampleAuthState

// The "main app": owns the real token (in the keychain, in the access group it shares with the
// widget) and publishes a sealed AuthState into the group container on every change.
//
//   ExampleApp sign-in <name> | refresh | sign-out | notify | style <light|dark> <refresh seconds>
//
// After every auth write it posts AuthState.changedNotification so the widget re-reads the state;
// `notify` posts it alone (the demo uses it to show that a post proves nothing by itself).
//
// Identity and storage come from GROUPVAULT_ENTITLEMENTS, GROUPVAULT_TEAM_ID,
// GROUPVAULT_BUNDLE_ID and GROUPVAULT_HOME, as for any GroupVault process.

/// Writes a line unbuffered, so whoever watches this process (the demo script) sees it at once.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("app: \(message)\n".utf8))
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let action = arguments.first else { fail("usage: ExampleApp sign-in <name> | refresh | sign-out | notify | style <light|dark> <seconds>") }

do {
    let keyring = try Keyring.fromEnvironment()
    guard let group = keyring.identity.applicationGroups.first else { fail("the app's entitlements name no application group") }
    let vault = try Vault(keyring: keyring, group: group)
    let notifications = try GroupNotificationCenter(keyring: keyring, group: group)
    let tokenItem = ItemQuery(service: "api.example.com", account: "session", accessGroup: group)

    switch action {
    case "sign-in", "refresh":
        let name = arguments.dropFirst().first ?? (try? keyring.item(matching: tokenItem)).flatMap { $0.label } ?? "someone"
        let token = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        var changes = ItemChanges()
        changes.secret = token
        changes.label = .some(name)
        if (try? keyring.update(matching: tokenItem, with: changes)) == nil {
            try keyring.add(KeychainItem(service: "api.example.com", account: "session", accessGroup: group,
                                         secret: token, label: name, accessibility: .afterFirstUnlock))
        }
        let state = AuthState(isAuthenticated: true, displayName: name,
                              tokenExpiry: Date().addingTimeInterval(3600),
                              sessionID: UUID().uuidString)
        let header = try vault.write(state, to: AuthState.recordName, expiresAt: Date().addingTimeInterval(3600))
        say("app: \(action) as \(name) -> sealed \(AuthState.recordName) #\(header.sequence) with key #\(header.keyID)")
    case "sign-out":
        _ = try? keyring.delete(matching: tokenItem)
        let header = try vault.write(AuthState(isAuthenticated: false), to: AuthState.recordName)
        say("app: signed out -> sealed \(AuthState.recordName) #\(header.sequence)")
    case "notify":
        say("app: posting \(AuthState.changedNotification) without writing anything")
    case "style":
        // Display preferences are settings, not secrets: the group's SharedDefaults suite.
        let rest = Array(arguments.dropFirst())
        guard rest.count == 2, ["light", "dark"].contains(rest[0]), let seconds = Int(rest[1]), seconds > 0 else {
            fail("usage: ExampleApp style <light|dark> <refresh seconds>")
        }
        let defaults = try SharedDefaults(suiteName: group.rawValue, group: group, keyring: keyring)
        try defaults.setEncoded(WidgetStyle(theme: rest[0], refreshInterval: seconds), forKey: WidgetStyle.key)
        say("app: widget style -> \(rest[0]), refresh every \(seconds) s (SharedDefaults \(group))")
        // The widget observes the suite itself; the auth notification is not posted, so the
        // change wakes it exactly once.
        exit(0)
    default:
        fail("unknown action \(action)")
    }
    // Posted after the sealed write has returned, so a woken widget reads the new state.
    try notifications.post(AuthState.changedNotification)
} catch {
    fail("\(error)")
}
