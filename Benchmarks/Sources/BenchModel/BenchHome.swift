#if canImport(FoundationEssentials)
// Only what the read path needs, so the cold-read child loads no more of Foundation than
// GroupVault itself does.
import FoundationEssentials
#else
import Foundation
#endif
import Keyring

/// The identity and group every benchmark process uses, so the benchmark and its child
/// processes (the cold read, the `resealAll` run) open the same keyring home as one app.
public enum BenchHome {
    /// The application group, also the keychain access group.
    public static let group = GroupIdentifier(rawValue: "group.com.example.bench")!

    /// An identity entitled to ``group`` both ways, as an app and its widget are.
    public static let identity = Identity(
        teamID: "ABCDE12345", bundleID: "com.example.bench", applicationGroups: [group])

    /// The keyring over the home at `root`.
    public static func keyring(root: URL) -> Keyring {
        Keyring(identity: identity, home: KeyringHome(root: root))
    }

    /// The name of the `index`th record of a group: fixed width, so names sort by index.
    public static func recordName(_ index: Int) -> String {
        "r" + String(index + 100_000).dropFirst()
    }
}
