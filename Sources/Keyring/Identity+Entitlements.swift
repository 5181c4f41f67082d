import Foundation
import SealedStorage

// STUB: owned by the identity helper, who replaces this file.
extension Identity {
    /// Reads an Xcode `.entitlements` property list.
    public init(entitlementsAt url: URL, teamID: String? = nil, bundleID: String? = nil) throws(KeyringError) {
        throw KeyringError(.unimplemented, "entitlements parsing is not implemented yet")
    }

    /// The process identity from GROUPVAULT_ENTITLEMENTS, GROUPVAULT_TEAM_ID, GROUPVAULT_BUNDLE_ID.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(KeyringError) -> Identity {
        throw KeyringError(.unimplemented, "Identity.fromEnvironment is not implemented yet")
    }

    /// The error for using `group` without the entitlement, explaining near-misses.
    package func missingEntitlement(for group: GroupIdentifier, operation: String) -> KeyringError {
        KeyringError(.missingEntitlement, "\(operation): \(group) is not one of this identity's access groups \(accessGroups.map(\.rawValue))")
    }
}

extension Keyring {
    /// A keyring for the process identity and home from the environment.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(KeyringError) -> Keyring {
        Keyring(identity: try Identity.fromEnvironment(environment), home: KeyringHome.fromEnvironment(environment))
    }

    /// The group container of `group`, created on first use; `nil` when not entitled (iOS behaviour).
    public func containerURL(for group: GroupIdentifier) throws(KeyringError) -> URL? {
        guard identity.isEntitled(toApplicationGroup: group) else { return nil }
        let directory = home.containersDirectory.appending(group.rawValue)
        try home.mapStorage("open group container \(group)") { () throws(StorageError) in
            try SafeDirectory.ensure(home.rootPath, sharing: home.sharing.fileSharing)
            try SafeDirectory.ensure(home.containersDirectory, sharing: home.sharing.fileSharing)
            for sub in ["", "Library", "Library/Caches", "Library/Application Support", "Library/Preferences"] {
                try SafeDirectory.ensure(sub.isEmpty ? directory : directory.appending(sub), sharing: home.sharing.fileSharing)
            }
        }
        return URL(fileURLWithPath: directory.string, isDirectory: true)
    }
}
