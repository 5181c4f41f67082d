import Foundation
import GroupVaultTestKit
@testable import Keyring
import SealedStorage
import XCTest

/// Passphrase mode inside one process: what the rows and files are, which the cross-process
/// tests (vaultcliTests/PassphraseModeTests) cannot see. Uses libsodium's minimum Argon2id
/// cost, passed as a parameter: the production default is never changed for tests.
final class PassphraseLockStateTests: ItemTestCase {
    private var savedRuntimeDirectory: String?
    private let passphrase = SecureBytes(copying: Array("correct horse battery staple".utf8))

    override func setUpWithError() throws {
        try super.setUpWithError()
        let runtime = home.directory.url.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        // runtimeFiles() reads the process environment; restored in tearDown.
        savedRuntimeDirectory = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"]
        setenv("XDG_RUNTIME_DIR", runtime.path, 1)
    }

    override func tearDown() {
        if let savedRuntimeDirectory { setenv("XDG_RUNTIME_DIR", savedRuntimeDirectory, 1) } else { unsetenv("XDG_RUNTIME_DIR") }
        super.tearDown()
    }

    private func add(_ account: String, _ accessibility: Accessibility) throws {
        try keyring.add(KeychainItem(service: "lock", account: account, secret: Data("secret-\(account)".utf8), accessibility: accessibility))
    }

    /// The lookup hashes of the row of `account`.
    private func hashes(_ account: String) throws -> ItemTable.Hashes {
        ItemTable.Hashes(
            KeychainItem(service: "lock", account: account, accessGroup: ItemTestHome.shared, secret: Data()),
            in: ItemTestHome.shared, key: try KeyringDatabase.shared(for: home.home).itemLookupKey)
    }

    /// The sealed bytes of the row of `account`.
    private func row(_ account: String) throws -> [UInt8] {
        let key = try hashes(account).key
        let stored = try KeyringDatabase.shared(for: home.home).read("test") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> [[UInt8]] in
            try transaction.query("SELECT sealed FROM items WHERE key_hash = ?", [.blob(Array(key))]) { $0.blob(0) }
        }
        return try XCTUnwrap(stored.first, "no row for \(account)")
    }

    private func format(of account: String) throws -> UInt8 {
        try XCTUnwrap(try row(account).first)
    }

    func testRowsOfWhenUnlockedClassesAreResealedUnderTheUnlockKeyWhenThePassphraseIsSet() throws {
        try add("when-unlocked", .whenUnlocked)
        try add("after-first-unlock", .afterFirstUnlock)
        XCTAssertEqual(try format(of: "when-unlocked"), 1)

        try home.home.setPassphrase(passphrase, parameters: .minimum)

        XCTAssertEqual(try format(of: "when-unlocked"), 2, "sealed under the unlock key")
        XCTAssertEqual(try format(of: "after-first-unlock"), 1, "still under the master secret")
        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "lock", account: "when-unlocked")).secret, Data("secret-when-unlocked".utf8))
    }

    /// The unlock key is not fixed for the database's life, so a row sealed under it is hashed
    /// again on every open, never remembered as consistent (ConsistentItemRows).
    func testARowUnderTheUnlockKeyIsNeverRememberedAsConsistent() throws {
        try home.home.setPassphrase(passphrase, parameters: .minimum)
        try add("when-unlocked", .whenUnlocked)
        try add("after-first-unlock", .afterFirstUnlock)
        let remembered = { try KeyringDatabase.shared(for: self.home.home).consistentItemRows.withLock { $0.count } }

        _ = try keyring.item(matching: ItemQuery(service: "lock", account: "when-unlocked"))
        XCTAssertEqual(try remembered(), 0)
        _ = try keyring.item(matching: ItemQuery(service: "lock", account: "after-first-unlock"))
        XCTAssertEqual(try remembered(), 1, "a row under the master secret's key is remembered")
    }

    func testWhileLockedAWhenUnlockedRowOpensWithNoKeyDerivedFromTheMasterSecret() throws {
        try home.home.setPassphrase(passphrase, parameters: .minimum)
        try add("when-unlocked", .whenUnlocked)
        try home.home.lock()
        XCTAssertEqual(try home.home.lockState(), .locked)

        let sealed = try row("when-unlocked")
        XCTAssertEqual(sealed.first, 2)
        // Everything on the machine in the clear while locked is the master secret (in the
        // runtime directory): no key derived from it, under any id the keyring uses, opens the row.
        let master = try home.home.runtimeMasterKey()
        let nonce = try XChaCha20Poly1305.Nonce(bytes: sealed[1..<25])
        let rowHashes = try hashes("when-unlocked")
        let candidates = (1...8).map { KeyDerivation.deriveKey(from: master, context: "GVKEYRNG", id: $0) }
            + (1...8).map { KeyDerivation.deriveKey(from: master, context: "GVUNLOCK", id: $0) } + [master]
        for (index, key) in candidates.enumerated() {
            for format: UInt8 in [1, 2] {
                let additionalData = ItemTable.additionalData(format: format, group: ItemTestHome.shared, itemClass: "genp", hashes: rowHashes)
                XCTAssertThrowsError(try XChaCha20Poly1305.open(Array(sealed[25...]), using: key, nonce: nonce, authenticating: additionalData),
                                     "candidate key \(index) opened the row")
            }
        }
        XCTAssertThrowsError(try keyring.item(matching: ItemQuery(service: "lock", account: "when-unlocked"))) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .interactionNotAllowed)
        }
    }

    /// This process holds the lock state's vetting of the runtime directory and the master
    /// secret between calls, and looks at one file each to revalidate: a `lock` made by another
    /// process must still be seen by the very next call.
    func testALockByAnotherProcessIsSeenByTheNextCallOfAWarmProcess() throws {
        try home.home.setPassphrase(passphrase, parameters: .minimum)
        try add("when-unlocked", .whenUnlocked)
        try add("after-first-unlock", .afterFirstUnlock)
        XCTAssertEqual(try home.home.lockState(), .unlocked)
        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "lock", account: "when-unlocked")).secret, Data("secret-when-unlocked".utf8))
        let groupKey = try keyring.groupKey(for: ItemTestHome.shared)

        let child = try FixtureProcess.run(
            ["home-lock"],
            environment: ["GROUPVAULT_HOME": home.home.root.path, "XDG_RUNTIME_DIR": try XCTUnwrap(ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"])])
        XCTAssertEqual(child.status, 0, child.errors)

        XCTAssertEqual(try home.home.lockState(), .locked)
        XCTAssertThrowsError(try keyring.item(matching: ItemQuery(service: "lock", account: "when-unlocked"))) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .interactionNotAllowed)
        }
        // Locked after the first unlock: what AfterFirstUnlock protects stays usable.
        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "lock", account: "after-first-unlock")).secret, Data("secret-after-first-unlock".utf8))
        XCTAssertEqual(try keyring.key(id: groupKey.id, in: ItemTestHome.shared).id, groupKey.id)
    }

    /// The master secret is served from memory while its runtime file is unchanged; once that
    /// file is gone (logout, reboot), nothing may be opened with the secret still held.
    func testAMasterSecretRemovedFromTheRuntimeDirectoryIsNoLongerServedFromMemory() throws {
        try home.home.setPassphrase(passphrase, parameters: .minimum)
        try add("always", .always)
        let groupKey = try keyring.groupKey(for: ItemTestHome.shared)
        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "lock", account: "always")).secret, Data("secret-always".utf8))

        try FileManager.default.removeItem(atPath: try home.home.runtimeFiles().master.string)

        XCTAssertEqual(try home.home.lockState(), .beforeFirstUnlock)
        XCTAssertThrowsError(try keyring.key(id: groupKey.id, in: ItemTestHome.shared)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .interactionNotAllowed)
        }
        XCTAssertThrowsError(try keyring.item(matching: ItemQuery(service: "lock", account: "always"))) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .interactionNotAllowed)
        }
    }

    func testAfterFirstUnlockItemsStayReadableWhileLocked() throws {
        try home.home.setPassphrase(passphrase, parameters: .minimum)
        try add("after-first-unlock", .afterFirstUnlock)
        try home.home.lock()
        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "lock", account: "after-first-unlock")).secret, Data("secret-after-first-unlock".utf8))
    }

    /// The device's rule in each state of the machine, with one deliberate difference: before
    /// the first unlock even `Always` items are refused, because the master secret that seals
    /// them is on disk only under the passphrase.
    func testReadingInEachMachineStateFollowsTheDeviceRuleExceptAlwaysBeforeFirstUnlock() throws {
        try home.home.setPassphrase(passphrase, parameters: .minimum)
        for accessibility in Accessibility.allCases { try add(accessibility.rawValue, accessibility) }
        let files = try home.home.runtimeFiles()
        let states: [(DeviceLockState, () throws -> Void)] = [
            (.unlocked, {}),
            (.locked, { try self.home.home.lock() }),
            // What logout or reboot does to the runtime directory.
            (.beforeFirstUnlock, { try FileManager.default.removeItem(atPath: files.master.string) }),
        ]
        for (state, enter) in states {
            try enter()
            XCTAssertEqual(try home.home.lockState(), state)
            for accessibility in Accessibility.allCases {
                let expected = state == .beforeFirstUnlock ? false : accessibility.permitsAccess(in: state)
                do {
                    let item = try keyring.item(matching: ItemQuery(service: "lock", account: accessibility.rawValue))
                    XCTAssertTrue(expected, "\(accessibility) was readable while \(state)")
                    XCTAssertEqual(item.secret, Data("secret-\(accessibility.rawValue)".utf8))
                } catch {
                    XCTAssertFalse(expected, "\(accessibility) while \(state): \(error)")
                    XCTAssertEqual(error.status, .interactionNotAllowed, "\(accessibility) while \(state): \(error)")
                }
            }
        }
    }

    func testWrongPassphraseIsAuthenticationFailedAndChangesNothing() throws {
        try home.home.setPassphrase(passphrase, parameters: .minimum)
        try home.home.lock()
        let wrapped = try Data(contentsOf: URL(fileURLWithPath: home.home.wrappedUnlockKeyPath.string))
        XCTAssertThrowsError(try home.home.unlock(passphrase: SecureBytes(copying: Array("wrong".utf8)), parameters: .minimum)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .authenticationFailed)
            XCTAssertTrue((error as? KeyringError)?.reason.contains("passphrase is wrong") == true, "\(error)")
        }
        XCTAssertEqual(try home.home.lockState(), .locked)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: home.home.wrappedUnlockKeyPath.string)), wrapped)
    }

    func testWhileLockedAQueryExcludingWhenUnlockedItemsStillSucceeds() throws {
        try home.home.setPassphrase(passphrase, parameters: .minimum)
        try add("usable", .afterFirstUnlock)
        try add("locked-away", .whenUnlocked)
        try home.home.lock()
        // Narrowed by an indexed attribute: the locked-away row is never opened.
        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "lock", account: "usable")).secret, Data("secret-usable".utf8))
        // Narrowed only by class: the locked-away row cannot be of that class, so it is passed over.
        let afterFirstUnlock = try keyring.items(matching: ItemQuery(service: "lock", accessibility: .afterFirstUnlock))
        XCTAssertEqual(afterFirstUnlock.map(\.account), ["usable"])
        // Not narrowed: whether the locked-away row matches cannot be known, so the search is refused.
        XCTAssertThrowsError(try keyring.items(matching: ItemQuery(service: "lock"))) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .interactionNotAllowed)
        }
    }

    func testReadingTheStateCreatesNothingInTheRuntimeDirectory() throws {
        XCTAssertEqual(try home.home.lockState(), .unlocked)
        try home.home.setPassphrase(passphrase, parameters: .minimum)
        let files = try home.home.runtimeFiles()
        try FileManager.default.removeItem(atPath: files.directory.string)
        XCTAssertEqual(try home.home.lockState(), .beforeFirstUnlock)
        XCTAssertFalse(FileManager.default.fileExists(atPath: files.directory.string))
    }

    func testUnlockRewrapsWhenTheStoredCostIsBelowTheCurrentOne() throws {
        try home.home.setPassphrase(passphrase, parameters: .minimum)
        var stronger = PassphraseWrappedKey.Parameters.minimum
        stronger.operations += 1
        try home.home.lock()

        XCTAssertTrue(try home.home.unlock(passphrase: passphrase, parameters: stronger), "a weaker wrap is rewrapped")
        XCTAssertEqual(try home.home.storedPassphraseParameters(), stronger)
        XCTAssertFalse(try home.home.unlock(passphrase: passphrase, parameters: .minimum), "a stronger wrap is never weakened")
        XCTAssertEqual(try home.home.storedPassphraseParameters(), stronger)
    }

    func testTheProductionCostIsLibsodiumsModerateLimits() {
        XCTAssertEqual(KeyringHome.currentPassphraseParameters, .moderate)
        XCTAssertGreaterThanOrEqual(KeyringHome.currentPassphraseParameters.memoryBytes, 256 << 20)
    }

    func testTheRuntimeKeyFilesAreOwnerOnly() throws {
        try home.home.setPassphrase(passphrase, parameters: .minimum)
        let files = try home.home.runtimeFiles()
        for path in [files.master, files.unlockKey] {
            let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path.string)[.posixPermissions] as? Int)
            XCTAssertEqual(mode, 0o600, path.string)
        }
    }

    func testAUnixGroupHomeCannotTakeAPassphrase() throws {
        let shared = KeyringHome(root: home.directory.url.appendingPathComponent("shared", isDirectory: true), sharing: .unixGroup)
        XCTAssertThrowsError(try shared.setPassphrase(passphrase, parameters: .minimum)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .invalidParameter)
        }
    }
}
