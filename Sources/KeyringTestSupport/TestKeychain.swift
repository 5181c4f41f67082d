// The emulator exists only where Apple's Security framework does not; on Apple platforms
// SecItem calls go to the real keychain, which these helpers cannot redirect.
#if !canImport(Darwin)
import Foundation
import Keyring

/// A throw-away keychain for your own tests: a fresh home in a temporary directory, installed as
/// the process keyring, so code calling `SecItemAdd`, `SecItemCopyMatching`, `SecItemUpdate`,
/// `SecItemDelete` and `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)` runs
/// in a plain test process, without the signed host app Apple platforms need (where such tests
/// fail with -34018 or -50).
///
/// ```swift
/// import KeyringTestSupport
///
/// func testTokenSurvivesRelaunch() throws {
///     let keychain = try TestKeychain(keychainAccessGroups: ["ABCDE12345.com.example.shared"])
///     defer { keychain.restore() }
///
///     try TokenStore().save("secret")          // your code, calling SecItemAdd
///     XCTAssertEqual(try TokenStore().load(), "secret")
///
///     try keychain.setLockState(.locked)       // the device locks
///     keychain.failNextOperation(with: .interactionNotAllowed)
///     keychain.userPresence = .deny            // the person cancels the Face ID prompt
/// }
/// ```
///
/// The process keyring, the user-presence answer and the failure switch are process-wide, as
/// the code signature and the person in front of the device are. Use one `TestKeychain` at a
/// time (XCTest runs tests one after another; in Swift Testing mark such suites `.serialized`),
/// and ``restore()`` it when done, which `deinit` also does.
public final class TestKeychain {
    /// The temporary home: keychains, group containers and the lock state.
    public let home: KeyringHome
    /// The identity SecItem calls act as now.
    public private(set) var identity: Identity
    /// The temporary directory holding the home and the entitlements files written for
    /// ``environment(for:)``; removed by ``restore()``.
    public let directory: URL

    private let previousKeyring: ProcessKeyring.Resolution
    private let previousUserPresence: UserPresence.Response
    private var isRestored = false

    /// A keyring acting as `identity`, over a new, empty home.
    ///
    /// - Parameters:
    ///   - identity: Who the process is, e.g. from ``identity(entitlements:teamID:bundleID:)``.
    ///   - sharing: The home's file sharing mode.
    /// - Throws: When the temporary directory cannot be created.
    public init(identity: Identity, sharing: StorageSharing = .ownerOnly) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("keyring-test-\(UUID().uuidString)", isDirectory: true)
        // Through the library's file layer, as all of its file operations are (issue 18).
        try PrivateDirectory.create(atPath: directory.path)
        home = KeyringHome(root: directory.appendingPathComponent("home", isDirectory: true), sharing: sharing)
        self.identity = identity
        previousUserPresence = UserPresence.response
        previousKeyring = ProcessKeyring.exchange(.resolved(Keyring(identity: identity, home: home)))
        ProcessKeyring.failNextOperation(with: nil)
        UserPresence.response = .approve
    }

    /// A keyring acting as an identity built from strings; see
    /// ``identity(teamID:bundleID:keychainAccessGroups:applicationGroups:)``.
    ///
    /// ```swift
    /// let keychain = try TestKeychain(applicationGroups: ["group.com.example"])
    /// ```
    public convenience init(
        teamID: String = "ABCDE12345",
        bundleID: String = "com.example.app",
        keychainAccessGroups: [String] = [],
        applicationGroups: [String] = []
    ) throws {
        try self.init(identity: Self.identity(
            teamID: teamID, bundleID: bundleID,
            keychainAccessGroups: keychainAccessGroups, applicationGroups: applicationGroups))
    }

    /// A keyring acting as the identity an inline `.entitlements` property list describes.
    ///
    /// ```swift
    /// let keychain = try TestKeychain(entitlements: """
    ///     <plist version="1.0"><dict>
    ///       <key>keychain-access-groups</key>
    ///       <array><string>$(AppIdentifierPrefix)com.example.shared</string></array>
    ///     </dict></plist>
    ///     """)
    /// ```
    public convenience init(entitlements: String, teamID: String = "ABCDE12345", bundleID: String = "com.example.app") throws {
        try self.init(identity: Self.identity(entitlements: entitlements, teamID: teamID, bundleID: bundleID))
    }

    deinit { restore() }

    /// The keyring SecItem calls act as now: ``identity`` over ``home``.
    public var keyring: Keyring { Keyring(identity: identity, home: home) }

    // MARK: Identities

    /// An identity from strings, validated as an entitlements file would be.
    ///
    /// ```swift
    /// let widget = try TestKeychain.identity(bundleID: "com.example.app.widget",
    ///                                        keychainAccessGroups: ["ABCDE12345.com.example.shared"])
    /// ```
    /// - Throws: `KeyringError` with `KeyringStatus.invalidParameter` for a malformed group.
    public static func identity(
        teamID: String = "ABCDE12345",
        bundleID: String = "com.example.app",
        keychainAccessGroups: [String] = [],
        applicationGroups: [String] = []
    ) throws(KeyringError) -> Identity {
        var keychain: [GroupIdentifier] = []
        for group in keychainAccessGroups { keychain.append(try GroupIdentifier(validating: group)) }
        var application: [GroupIdentifier] = []
        for group in applicationGroups { application.append(try GroupIdentifier(validating: group)) }
        return Identity(teamID: teamID, bundleID: bundleID, keychainAccessGroups: keychain, applicationGroups: application)
    }

    /// An identity from an inline `.entitlements` property list (XML), with Xcode's variables
    /// such as `$(AppIdentifierPrefix)` expanded for `teamID`.
    /// - Throws: `KeyringError` with `KeyringStatus.invalidParameter` naming what is wrong.
    public static func identity(entitlements: String, teamID: String = "ABCDE12345", bundleID: String = "com.example.app") throws(KeyringError) -> Identity {
        try Identity(entitlements: Data(entitlements.utf8), source: "inline entitlements", teamID: teamID, bundleID: bundleID)
    }

    /// Makes SecItem calls act as `identity` over the same home from now on: the app writes,
    /// then the test becomes the widget and reads.
    public func act(as identity: Identity) {
        self.identity = identity
        _ = ProcessKeyring.exchange(.resolved(keyring))
    }

    // MARK: Device state

    /// Sets the emulated lock state of the home, e.g. `.locked` to see what a widget sees
    /// while the phone is locked (`errSecInteractionNotAllowed` for `WhenUnlocked` items).
    public func setLockState(_ state: DeviceLockState) throws(KeyringError) {
        try home.setLockState(state)
    }

    /// The home's emulated lock state.
    public func lockState() throws(KeyringError) -> DeviceLockState {
        try home.lockState()
    }

    /// What the emulated person answers to user-presence and biometry prompts: `.approve`
    /// (the start), `.deny` (`errSecUserCanceled`) or `.unavailable` (`errSecAuthFailed`).
    public var userPresence: UserPresence.Response {
        get { UserPresence.response }
        set { UserPresence.response = newValue }
    }

    /// Makes the next SecItem call (any of the four, whatever its dictionary) return `status`,
    /// as a device does: `.missingEntitlement` (-34018) for a build without the keychain
    /// entitlement, `.interactionNotAllowed` (-25308) for a locked device, `.notAvailable`,
    /// `.userCanceled`, ... Later calls behave normally again.
    public func failNextOperation(with status: KeyringStatus) {
        ProcessKeyring.failNextOperation(with: KeyringError(status, "injected by TestKeychain.failNextOperation(with: \(status.name))"))
    }

    // MARK: Child processes

    /// The `GROUPVAULT_*` environment that makes another process act as `identity` (by default
    /// the current one) over this home: for testing an app and its extension as two processes.
    ///
    /// ```swift
    /// let widget = Process()
    /// widget.environment = ProcessInfo.processInfo.environment.merging(try keychain.environment(for: widgetIdentity)) { $1 }
    /// ```
    /// - Throws: When the entitlements file cannot be written.
    public func environment(for identity: Identity? = nil) throws -> [String: String] {
        let identity = identity ?? self.identity
        var entitlements: [String: Any] = [
            "keychain-access-groups": identity.keychainAccessGroups.map(\.rawValue),
            "com.apple.security.application-groups": identity.applicationGroups.map(\.rawValue),
        ]
        if let applicationIdentifier = identity.applicationIdentifier {
            entitlements["application-identifier"] = applicationIdentifier.rawValue
        }
        let data = try PropertyListSerialization.data(fromPropertyList: entitlements, format: .xml, options: 0)
        let name = "entitlements-\(UUID().uuidString).plist"
        let file = directory.appendingPathComponent(name)
        try PrivateDirectory.write(Array(data), named: name, inDirectoryAtPath: directory.path)
        var environment = ["GROUPVAULT_HOME": home.root.path, "GROUPVAULT_ENTITLEMENTS": file.path]
        environment["GROUPVAULT_TEAM_ID"] = identity.teamID
        environment["GROUPVAULT_BUNDLE_ID"] = identity.bundleID
        if home.sharing == .unixGroup { environment["GROUPVAULT_SHARING"] = home.sharing.rawValue }
        return environment
    }

    // MARK: Restoring

    /// Puts back the process keyring and the user-presence answer that were in force before,
    /// disarms the failure switch and deletes the temporary directory. Safe to call twice.
    public func restore() {
        guard !isRestored else { return }
        isRestored = true
        _ = ProcessKeyring.exchange(previousKeyring)
        ProcessKeyring.failNextOperation(with: nil)
        UserPresence.response = previousUserPresence
        // A cleanup that cannot finish leaves a directory in the temporary folder; the test
        // that made it is over, and has nothing to report it to.
        try? PrivateDirectory.removeTree(atPath: directory.path)
    }
}
#endif
