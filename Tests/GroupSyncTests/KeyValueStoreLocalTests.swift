import Foundation
@testable import GroupSync
import PostgresNIO
import InMemoryLogging
import Keyring
import Logging
import SealedStorage
import XCTest

/// The ubiquitous key-value store without a server: Apple's shape, limits and entitlement.
final class KeyValueStoreLocalTests: SyncSandboxTestCase {
    private func store() throws -> UbiquitousKeyValueStore { try sandbox.store(0, url: nil) }

    func testTypedValuesReadBackWithoutAServer() throws {
        let store = try store()
        store.set("text", forKey: "string")
        store.set(Int64(42), forKey: "int")
        store.set(2.5, forKey: "double")
        store.set(true, forKey: "bool")
        store.set(Data([1, 2, 3]), forKey: "data")
        store.set([.string("a"), .int(1)], forKey: "array")
        store.set(["nested": .bool(false)], forKey: "dictionary")

        XCTAssertEqual(store.string(forKey: "string"), "text")
        XCTAssertEqual(store.longLong(forKey: "int"), 42)
        XCTAssertEqual(store.double(forKey: "double"), 2.5)
        XCTAssertTrue(store.bool(forKey: "bool"))
        XCTAssertEqual(store.data(forKey: "data"), Data([1, 2, 3]))
        XCTAssertEqual(store.array(forKey: "array"), [.string("a"), .int(1)])
        XCTAssertEqual(store.dictionary(forKey: "dictionary"), ["nested": .bool(false)])
        XCTAssertEqual(store.dictionaryRepresentation.count, 7)
        XCTAssertTrue(store.synchronize())
    }

    func testValuesSurviveReopeningTheStore() throws {
        try store().set("kept", forKey: "token")
        XCTAssertEqual(try store().string(forKey: "token"), "kept")
        XCTAssertEqual(try store().status.pendingWrites, 1, "a write made without a server waits to be pushed")
    }

    /// Keys are their UTF-8 bytes, as Apple's store compares `NSString` keys literally; a Swift
    /// dictionary of them, compared by canonical equivalence, shows one (docs/SYNC.md, section 10).
    func testKeysThatDifferOnlyInUnicodeNormalisationAreTwoKeys() throws {
        let store = try store()
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        store.set("composed", forKey: composed)
        store.set("decomposed", forKey: decomposed)
        XCTAssertEqual(store.string(forKey: composed), "composed")
        XCTAssertEqual(store.string(forKey: decomposed), "decomposed")
        XCTAssertEqual(store.dictionaryRepresentation.count, 1)
    }

    func testRemovingAKeyRemovesItsValue() throws {
        let store = try store()
        store.set("x", forKey: "token")
        store.removeObject(forKey: "token")
        XCTAssertNil(store.object(forKey: "token"))
        XCTAssertNil(try self.store().object(forKey: "token"))
    }

    func testAWriteWhoseJournalRecordFailsIsNotKeptAndTheNextOneIs() throws {
        let store = try store()
        for step in FaultPoint.appendSteps {
            // Kept first: a failed append leaves no journal to append to, this write compacts.
            try store.setValue(.string("kept"), forKey: "token")
            XCTAssertThrowsError(try FaultInjection.withFault(.fail(.ioError), at: .step(step)) { () throws -> Void in
                try store.setValue(.string("failed at \(step)"), forKey: "token")
            }, "the failure at \(step) must reach the writer")
            XCTAssertEqual(store.string(forKey: "token"), "kept", "a write that failed at \(step) is shown")
        }
        try store.setValue(.string("next"), forKey: "other")
        XCTAssertEqual(try self.store().string(forKey: "token"), "kept")
        XCTAssertEqual(try self.store().string(forKey: "other"), "next")
        XCTAssertEqual(store.status.pendingWrites, 2)
    }

    func testAKeyLongerThanSixtyFourBytesIsRefusedAsAQuotaViolation() throws {
        let store = try store()
        XCTAssertThrowsError(try store.setValue(.string("x"), forKey: String(repeating: "é", count: 33))) { error in
            XCTAssertEqual((error as? SyncError)?.code, .quota, "\(error)")
        }
        XCTAssertNoThrow(try store.setValue(.string("x"), forKey: String(repeating: "k", count: 64)))
    }

    func testTheThousandAndTwentyFifthKeyIsRefused() throws {
        let store = try store()
        for index in 0..<UbiquitousStoreLimits.maximumKeyCount {
            try store.setValue(.bool(true), forKey: "k\(index)")
        }
        XCTAssertThrowsError(try store.setValue(.bool(true), forKey: "one-too-many")) { error in
            XCTAssertEqual((error as? SyncError)?.code, .quota, "\(error)")
        }
        XCTAssertNoThrow(try store.setValue(.bool(false), forKey: "k0"), "replacing a key adds none")
    }

    func testAStoreOverOneMegabyteIsRefused() throws {
        let store = try store()
        let half = Data(repeating: 7, count: 400_000)
        try store.setValue(.data(half), forKey: "a")
        XCTAssertThrowsError(try store.setValue(.data(half), forKey: "b")) { error in
            XCTAssertEqual((error as? SyncError)?.code, .quota, "\(error)")
        }
        XCTAssertNil(store.object(forKey: "b"), "a refused write is not kept")
    }

    /// One value's entry, sealed, must fit one Vault payload, which carries the value's JSON as
    /// base64 (docs/SYNC.md, "Quota"): `Data` of 580,000 bytes fits, of 600,000 does not.
    func testAValueWhoseSealedEntryWouldNotFitOnePayloadIsRefusedNamingItsSize() throws {
        let store = try store()
        // Alone in the store, so that the store's 1 MB is not what refuses it.
        XCTAssertThrowsError(try store.setValue(.data(Data(repeating: 1, count: 600_000)), forKey: "too-large")) { error in
            XCTAssertEqual((error as? SyncError)?.code, .quota, "\(error)")
            XCTAssertTrue((error as? SyncError)?.reason.contains("bytes sealed") ?? false, "\(error)")
        }
        XCTAssertNil(store.object(forKey: "too-large"), "a refused write is not kept")
        XCTAssertNoThrow(try store.setValue(.data(Data(repeating: 1, count: 580_000)), forKey: "fits"))
    }

    func testApplesNonThrowingSetterReportsAQuotaViolationChange() async throws {
        let store = try store()
        let changes = store.externalChanges()
        let key = String(repeating: "k", count: 65)
        store.set("x", forKey: key)
        var iterator = changes.makeAsyncIterator()
        let change = await iterator.next()
        XCTAssertEqual(change, UbiquitousChange(reason: .quotaViolationChange, changedKeys: [key]))
        XCTAssertNil(store.object(forKey: key))
    }

    /// The store of ``store()``'s machine, logging into `logs`.
    private func store(loggingInto logs: InMemoryLogHandler) throws -> UbiquitousKeyValueStore {
        var keyring = sandbox.keyrings[0]
        var logger = Logger(label: "test", factory: { _ in logs })
        logger.logLevel = .trace
        keyring.logger = logger
        return try SyncSandbox.store(keyring: keyring, url: nil)
    }

    /// Runs `write` with the `fdatasync` of the journal's append failing, after a write that
    /// leaves a journal to append to (a store's first write compacts instead).
    private func failAppending(_ write: @autoclosure () -> Void, to store: UbiquitousKeyValueStore) throws {
        try store.setValue(.string("kept"), forKey: "other")
        FaultInjection.withFault(.fail(.ioError), at: .step(.syncAppended)) { write() }
    }

    func testApplesNonThrowingSetterLogsWhyAWriteWasNotKept() throws {
        let logs = InMemoryLogHandler()
        let store = try store(loggingInto: logs)
        try failAppending(store.set("lost", forKey: "token"), to: store)
        XCTAssertNil(store.object(forKey: "token"))
        let entries = logs.entries.filter { $0.message.description == "ubiquitous key-value store write not kept" }
        XCTAssertEqual(entries.count, 1, "\(logs.entries)")
        XCTAssertEqual(entries.first?.level, .info)
        XCTAssertEqual(entries.first?.metadata["key"], "token")
        XCTAssertEqual(entries.first?.metadata["code"], "storage")
        XCTAssertFalse("\(logs.entries)".contains("lost"), "a value is never logged")
    }

    func testAWriteThatCouldNotBeMadeDurableIsNoQuotaViolation() async throws {
        let store = try store()
        let changes = store.externalChanges()
        try failAppending(store.set("lost", forKey: "token"), to: store)
        XCTAssertNil(store.object(forKey: "token"), "the write failed")
        // The next change published is the quota violation that follows, not one for the
        // failed durable write before it (publishing is done within `set`).
        let tooLong = String(repeating: "k", count: 65)
        store.set("x", forKey: tooLong)
        var iterator = changes.makeAsyncIterator()
        let change = await iterator.next()
        XCTAssertEqual(change, UbiquitousChange(reason: .quotaViolationChange, changedKeys: [tooLong]))
    }

    func testAMachineWithAKeyOneOfItsOwnShowsAnotherStoreID() throws {
        try sandbox.addMachine()
        let joined = try sandbox.store(1, url: nil).status.storeID
        XCTAssertEqual(joined, try store().status.storeID, "a machine that imported key #1")
        XCTAssertEqual(joined.count, 16)
        // A machine that opened the store before importing: it made a key #1 of its own.
        let alone = try SyncSandbox.keyring(at: sandbox.directory.url.appendingPathComponent("alone"))
        XCTAssertNotEqual(try SyncSandbox.store(keyring: alone, url: nil).status.storeID, joined)
    }

    func testAProcessWithoutTheEntitlementIsRefusedWithTheWayToAddIt() throws {
        XCTAssertThrowsError(try UbiquitousKeyValueStore(
            group: SyncSandbox.group, keyring: sandbox.keyrings[0], entitlement: .some(nil), configuration: .some(nil))
        ) { error in
            let error = error as? SyncError
            XCTAssertEqual(error?.code, .missingEntitlement)
            XCTAssertTrue(error?.reason.contains("com.apple.developer.ubiquity-kvstore-identifier") ?? false, "\(String(describing: error))")
        }
    }

    func testTheEntitlementExpandsTheTeamIdentifierPrefix() throws {
        let plist = Data("""
            <plist version="1.0"><dict>
              <key>com.apple.developer.ubiquity-kvstore-identifier</key>
              <string>$(TeamIdentifierPrefix)com.example.app</string>
            </dict></plist>
            """.utf8)
        let entitlement = try UbiquityKeyValueStoreEntitlement(entitlements: plist, source: "test", teamID: "ABCDE12345")
        XCTAssertEqual(entitlement?.identifier.rawValue, "ABCDE12345.com.example.app")
    }

    func testEntitlementsWithoutTheKeyGrantNoStore() throws {
        let plist = Data("<plist version=\"1.0\"><dict></dict></plist>".utf8)
        XCTAssertNil(try UbiquityKeyValueStoreEntitlement(entitlements: plist, source: "test", teamID: "ABCDE12345"))
    }

    func testAMachineWithoutTheGroupsFirstKeyIsToldToImportIt() throws {
        let stranger = try SyncSandbox.keyring(at: sandbox.directory.url.appendingPathComponent("stranger"))
        _ = try stranger.groupKey(for: SyncSandbox.group)
        _ = try stranger.rotateKey(in: SyncSandbox.group)
        _ = try stranger.retireKey(id: 1, in: SyncSandbox.group)
        XCTAssertThrowsError(try SyncSandbox.store(keyring: stranger, url: nil)) { error in
            XCTAssertEqual((error as? SyncError)?.code, .keyring)
            XCTAssertTrue((error as? SyncError)?.reason.contains("keys import") ?? false, "\(error)")
        }
    }
}

/// Connection URLs: parsed, and never printed with their password.
final class SyncServerURLTests: XCTestCase {
    func testThePasswordIsRedactedInTheDescription() throws {
        let url = try SyncServerURL("postgres://sync:hunter2-secret@db.example.com:6543/groupsync")
        XCTAssertFalse(url.description.contains("hunter2-secret"))
        XCTAssertFalse(String(reflecting: url).contains("hunter2-secret"))
        XCTAssertFalse("\(SyncConfiguration(url: url))".contains("hunter2-secret"))
        XCTAssertTrue(url.description.contains("sync:***@db.example.com:6543/groupsync"), url.description)
        XCTAssertEqual(url.tlsMode, .require, "TCP defaults to TLS")
    }

    func testAnInvalidURLIsRefusedWithoutItsPassword() {
        XCTAssertThrowsError(try SyncServerURL("mysql://sync:hunter2-secret@db.example.com/groupsync")) { error in
            XCTAssertEqual((error as? SyncError)?.code, .configuration)
            XCTAssertFalse("\(error)".contains("hunter2-secret"), "\(error)")
        }
        XCTAssertThrowsError(try SyncServerURL("postgres://sync:hunter2-secret@db.example.com/groupsync?sslmode=sometimes")) { error in
            XCTAssertFalse("\(error)".contains("hunter2-secret"), "\(error)")
        }
    }

    /// The refusal of `string`, which must not parse.
    private func refusal(of string: String) -> SyncError? {
        do throws(SyncError) {
            _ = try SyncServerURL(string)
            return nil
        } catch {
            return error
        }
    }

    func testAPasswordGivenAsAQueryParameterIsRefusedWithoutBeingShown() throws {
        let error = try XCTUnwrap(refusal(of: "postgres://sync@db.example.com/groupsync?sslmode=require&password=hunter2-secret"))

        XCTAssertEqual(error.code, .configuration)
        XCTAssertFalse(error.description.contains("hunter2-secret"), error.description)
        XCTAssertTrue(error.reason.contains("?sslmode=require&password=***"), "the rest of the URL is shown: \(error.reason)")
        XCTAssertTrue(error.reason.contains("postgres://user:password@host"), "it says where a password goes: \(error.reason)")
    }

    func testAURLWithoutSchemeSlashesIsRefusedWithoutBeingShown() throws {
        for string in ["postgres:sync:hunter2-secret@db.example.com/groupsync", "sync:hunter2-secret@db.example.com/groupsync"] {
            let error = try XCTUnwrap(refusal(of: string), string)

            XCTAssertEqual(error.code, .configuration)
            XCTAssertFalse(error.description.contains("hunter2-secret"), error.description)
        }
    }

    func testOtherQueryValuesAQueryItemWithoutAValueAndAFragmentAreNotShown() throws {
        let strings = ["postgres://sync@db.example.com/groupsync?sslpassword=hunter2-secret",
                       "postgres://sync@db.example.com/groupsync?hunter2-secret",
                       "postgres://sync@db.example.com/groupsync?sslmode=sometimes#hunter2-secret"]
        for string in strings {
            let error = try XCTUnwrap(refusal(of: string), string)

            XCTAssertFalse(error.description.contains("hunter2-secret"), error.description)
        }
    }

    func testAURLsReflectionLeavesThePasswordOut() throws {
        let url = try SyncServerURL("postgres://sync:hunter2-secret@db.example.com/groupsync")
        var dumped = ""

        dump(SyncConfiguration(url: url), to: &dumped)

        XCTAssertFalse(dumped.contains("hunter2-secret"), dumped)
        XCTAssertTrue(dumped.contains("db.example.com"), dumped)
    }

    func testVerifyCAAndARootCertificateFileAreTakenFromTheURL() throws {
        let url = try SyncServerURL("postgres://sync@db.example.com/groupsync?sslmode=verify-ca&sslrootcert=/etc/groupsync/ca.pem")

        XCTAssertEqual(url.tlsMode, .verifyCA)
        XCTAssertEqual(url.rootCertificatePath, "/etc/groupsync/ca.pem")
        XCTAssertTrue(url.redacted.hasSuffix("?sslmode=verify-ca&sslrootcert=/etc/groupsync/ca.pem"), url.redacted)
        let tls = SyncConfiguration(url: url).clientTLSConfiguration
        XCTAssertEqual(tls.trustRoots, .file("/etc/groupsync/ca.pem"), "the file's authorities, not the system's")
        XCTAssertEqual(tls.certificateVerification, .noHostnameVerification)
    }

    func testVerifyFullAndRequireCheckTheCertificateAndTheHostName() throws {
        for mode in ["verify-full", "require"] {
            let url = try SyncServerURL("postgres://sync@db.example.com/groupsync?sslmode=\(mode)")

            let tls = SyncConfiguration(url: url).clientTLSConfiguration
            XCTAssertEqual(tls.certificateVerification, .fullVerification, mode)
            XCTAssertEqual(tls.trustRoots, TLSConfiguration.makeClientConfiguration().trustRoots, "\(mode): the system's authorities")
        }
    }

    func testARootCertificateFileWithoutTLSOrNotAnAbsolutePathIsRefused() throws {
        for string in ["postgres://sync@db.example.com/groupsync?sslmode=disable&sslrootcert=/etc/ca.pem",
                       "postgres://sync@localhost/groupsync?host=/run/postgresql&sslrootcert=/etc/ca.pem",
                       "postgres://sync@db.example.com/groupsync?sslrootcert=ca.pem"] {
            XCTAssertEqual(refusal(of: string)?.code, .configuration, string)
        }
    }

    func testAMissingRootCertificateFileFailsTheConnectionAsConfigurationNamingTheServer() async throws {
        let error = try await unreachable("postgres://u@127.0.0.1:1/d?sslmode=verify-full&sslrootcert=/nonexistent-directory/ca.pem")

        XCTAssertEqual(error?.code, .configuration, String(describing: error))
        XCTAssertTrue(error?.reason.contains("sslrootcert=/nonexistent-directory/ca.pem") ?? false, String(describing: error))
    }

    func testASocketDirectoryIsTakenFromTheHostParameter() throws {
        let url = try SyncServerURL("postgres://groupsync@localhost/groupsync?host=/tmp/pg")
        XCTAssertEqual(url.socketPath, "/tmp/pg/.s.PGSQL.5432")
        XCTAssertEqual(url.tlsMode, .disable)
    }

    func testTheEnvironmentVariableConfiguresTheServer() throws {
        let configuration = try SyncConfiguration.fromEnvironment(["GROUPVAULT_SYNC_URL": "postgres://u:p@h/d"])
        XCTAssertEqual(configuration?.url.host, "h")
        XCTAssertNil(try SyncConfiguration.fromEnvironment([:]))
    }

    /// The error of one exchange with `url`, a server that cannot be reached.
    private func unreachable(_ url: String) async throws -> SyncError? {
        let sandbox = try SyncSandbox(machines: 1)
        defer { sandbox.remove() }
        let store = try sandbox.store(0, url: url)
        do throws(SyncError) {
            try await store.synchronizeWithServer()
            return nil
        } catch {
            return error
        }
    }

    func testAnUnreachableServerIsAServerErrorWithoutThePassword() async throws {
        let error = try await unreachable("postgres://u:hunter2-secret@localhost/d?host=/nonexistent-directory")
        XCTAssertEqual(error?.code, .server)
        XCTAssertNotNil(error?.underlyingError, "the driver's error is kept")
        XCTAssertFalse(error?.description.contains("hunter2-secret") ?? true, "\(String(describing: error))")
    }

    func testAnUnreachableServerSaysWhatTheSystemSaid() async throws {
        let missingSocket = try await unreachable("postgres://u@localhost/d?host=/nonexistent-directory")
        XCTAssertTrue(missingSocket?.reason.contains("No such file or directory (errno 2)") ?? false, "\(String(describing: missingSocket))")
        // Port 1 of the loopback: nothing listens there.
        let refused = try await unreachable("postgres://u@127.0.0.1:1/d?sslmode=disable")
        XCTAssertTrue(refused?.reason.contains("127.0.0.1:1: Connection refused (errno 111)") ?? false, "\(String(describing: refused))")
    }
}
