import Foundation
import GroupVaultTestKit
import Keyring
import SealedStorage
import Vault
import XCTest

/// A clock tests move by hand, shared by the vaults that read it.
final class TestClock: Sendable {
    /// 2023-11-14T22:13:20Z: a whole second, so millisecond rounding never matters.
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    private let current: Locked<Date>

    init(_ date: Date = TestClock.start) {
        current = Locked(date)
    }

    var now: Date { current.withLock { $0 } }

    func set(_ date: Date) { current.withLock { $0 = date } }

    func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }

    /// The closure a vault reads the time from.
    var source: @Sendable () -> Date { { [self] in now } }
}

/// The record of the auth-state flow (the README's app/widget flow, scripts/demo), schema 1.
struct AuthState: VaultRecord, Equatable {
    struct Inconsistent: Error {}

    static let schemaVersion: UInt32 = 1
    var isAuthenticated: Bool
    var displayName: String?
    var tokenDigest: String?

    static let signedIn = AuthState(isAuthenticated: true, displayName: "Ada", tokenDigest: "3f2a")
    static let signedInAgain = AuthState(isAuthenticated: true, displayName: "Ada Lovelace", tokenDigest: "9c01")
    static let signedOut = AuthState(isAuthenticated: false, displayName: nil, tokenDigest: nil)

    /// Signed in without a name is what a half-written state would look like: refuse it.
    func validate() throws {
        if isAuthenticated && displayName == nil { throw Inconsistent() }
    }
}

/// A throw-away keyring home with one identity entitled to two groups, and a test clock.
struct VaultSandbox {
    static let group = GroupIdentifier(rawValue: "group.com.example.shared")!
    static let otherGroup = GroupIdentifier(rawValue: "group.com.example.other")!

    let directory: TemporaryDirectory
    let home: KeyringHome
    let keyring: Keyring
    let clock = TestClock()

    init() throws {
        directory = try TemporaryDirectory(prefix: "vault-test")
        home = KeyringHome(root: directory.url)
        keyring = Keyring(
            identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.app", applicationGroups: [Self.group, Self.otherGroup]),
            home: home)
    }

    /// A vault over this home; every call makes a fresh value, as a new process would.
    func vault(
        group: GroupIdentifier = VaultSandbox.group,
        durability: WriteDurability = .full,
        clockSkewAllowance: TimeInterval = Vault.defaultClockSkewAllowance,
        clock: TestClock? = nil
    ) throws(VaultError) -> Vault {
        try Vault(keyring: keyring, group: group, durability: durability, clockSkewAllowance: clockSkewAllowance, clock: (clock ?? self.clock).source)
    }

    /// The record file of `name` in `vault`.
    func recordURL(_ name: String, in vault: Vault) -> URL {
        URL(fileURLWithPath: vault.recordsDirectory.string).appendingPathComponent("\(name).\(Vault.recordFileExtension)")
    }

    /// The bytes of a record file.
    func blob(_ name: String, in vault: Vault) throws -> [UInt8] {
        Array(try Data(contentsOf: recordURL(name, in: vault)))
    }

    /// Puts `bytes` in place of a record file, as an attacker with access to the container could.
    func place(_ bytes: [UInt8], as name: String, in vault: Vault) throws {
        try Data(bytes).write(to: recordURL(name, in: vault))
    }

    /// The path of the home's keyring database, which holds the trust ledger.
    var databasePath: String {
        home.root.appendingPathComponent("Keychains").appendingPathComponent(KeyringDatabase.fileName).path
    }

    /// The names in the records directory, hidden temporaries included.
    func recordsDirectoryEntries(of vault: Vault) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: vault.recordsDirectory.string).sorted()
    }

    /// Deletes the home; this process's connection to its keyring database is closed first.
    func remove() {
        KeyringDatabase.closeAll()
        directory.remove()
    }
}

/// Asserts that `body` throws a `VaultError` with `code` (and returns no value).
func assertRefused<T>(
    _ code: VaultError.Code,
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath,
    line: UInt = #line,
    _ body: () throws(VaultError) -> T
) {
    do {
        let value = try body()
        XCTFail("expected \(code), got a value: \(value) \(message())", file: file, line: line)
    } catch {
        XCTAssertEqual(error.code, code, "\(error) \(message())", file: file, line: line)
    }
}

/// The arrangement most vault tests share, written once: a fresh ``VaultSandbox`` for every
/// test, removed after it (a subclass's own `tearDown` runs first, then this one's).
class VaultTestCase: XCTestCase {
    /// This test's home, keyring and clock.
    private(set) var sandbox: VaultSandbox!

    override func setUpWithError() throws {
        try super.setUpWithError()
        sandbox = try VaultSandbox()
    }

    override func tearDown() {
        sandbox?.remove()
        sandbox = nil
        super.tearDown()
    }
}
