import Foundation
import GroupMessaging
import Keyring
import SharedDefaults
import Vault
import ExampleAuthState

// The "widget": another process with its own identity in the same groups. It never polls: it
// renders once, then re-renders each time the app posts AuthState.changedNotification (a
// GroupMessaging notification: a name, no payload) and each time its display preferences change
// (theme, refresh interval: the group's SharedDefaults suite, which the app sets). The
// notification only says "look again": every render re-reads and authenticates the sealed state,
// which stays the truth, so a post from anyone else in the group changes nothing it shows.
// Anything it cannot trust reads as "signed out", and it says why.
//
//   ExampleWidget [--changes N]      exit after N wake-ups (default: run until killed)

/// Writes a line unbuffered, so whoever watches this process (the demo script) sees it at once.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func render(_ vault: Vault, _ defaults: SharedDefaults) {
    let style = (try? defaults.decoded(WidgetStyle.self, forKey: WidgetStyle.key)) ?? nil ?? .standard
    let shown = " [\(style.theme), every \(style.refreshInterval) s]"
    var refusal: VaultError?
    let state = vault.readIfValid(AuthState.self, from: AuthState.recordName) { refusal = $0 }
    if let state, state.isAuthenticated, let name = state.displayName {
        say("widget: Hello, \(name)\(shown)")
    } else if let refusal {
        say("widget: Sign in (refused the shared state: \(refusal.code))\(shown)")
    } else {
        say("widget: Sign in\(shown)")
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
let limit = arguments.firstIndex(of: "--changes").flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil }

do {
    let keyring = try Keyring.fromEnvironment()
    guard let group = keyring.identity.applicationGroups.first else {
        FileHandle.standardError.write(Data("widget: the widget's entitlements name no application group\n".utf8))
        exit(1)
    }
    let vault = try Vault(keyring: keyring, group: group)
    let defaults = try SharedDefaults(suiteName: group.rawValue, group: group, keyring: keyring)
    // One stream of "look again" from both sources: the app's notification after it writes the
    // auth state, and changes to the style in SharedDefaults.
    let (changes, continuation) = AsyncStream.makeStream(of: Void.self)
    let authPosts = try GroupNotificationCenter(keyring: keyring, group: group)
        .notifications(named: AuthState.changedNotification)
    let styleChanges = try defaults.changes(forKey: WidgetStyle.key)
    Task { for await _ in authPosts { continuation.yield() } }
    Task { for await _ in styleChanges { continuation.yield() } }
    render(vault, defaults)
    say("widget: ready")
    var seen = 0
    for await _ in changes {
        render(vault, defaults)
        seen += 1
        if let limit, seen >= limit { break }
    }
} catch {
    FileHandle.standardError.write(Data("widget: \(error)\n".utf8))
    exit(1)
}
