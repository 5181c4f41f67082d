import Foundation
import SharedDefaults
import Vault
import XCTest

/// Issue 18: deleting one entry's record file made its key read as never set, silently
/// resetting a sealed setting. A key the trust ledger knows whose file is gone reads as refused
/// (`missing`); a key removed with `removeObject(forKey:)` still reads as not set.
final class SharedDefaultsMissingEntryTests: XCTestCase {
    private var sandbox: DefaultsSandbox!
    private static let missing = VaultError.Code(rawValue: "missing")

    override func setUpWithError() throws { sandbox = try DefaultsSandbox() }
    override func tearDown() { sandbox.remove() }

    /// Deletes the record file of `key`, as anyone who can write the container can.
    private func deleteRecordFile(of key: String, in defaults: SharedDefaults) throws {
        let name = defaults.recordName(forKey: key) + ".gvr"
        let file = try XCTUnwrap(try sandbox.recordFiles().first { $0.lastPathComponent == name }, "no record file for \(key)")
        try FileManager.default.removeItem(at: file)
    }

    /// The Vault error `value(forKey:)` refuses `key` with, or `nil` when it does not throw.
    private static func refusal(of key: String, in defaults: SharedDefaults) -> VaultError? {
        do {
            let value = try defaults.value(forKey: key)
            XCTFail("expected \"\(key)\" to be refused, read \(String(describing: value))")
            return nil
        } catch {
            XCTAssertEqual(error.code, .refused, "\(error)")
            return error.vaultError
        }
    }

    func testAnEntryWhoseFileWasDeletedIsRefusedAsMissingNotReadAsNeverSet() throws {
        let writer = try sandbox.defaults()
        try writer.set("pro", forKey: "plan")
        try deleteRecordFile(of: "plan", in: writer)

        XCTAssertEqual(Self.refusal(of: "plan", in: try sandbox.defaults())?.code, Self.missing)
    }

    func testAMissingEntryIsListedAmongTheRefusalsOfAFreshView() throws {
        let writer = try sandbox.defaults()
        try writer.set("pro", forKey: "plan")
        try writer.set("kept", forKey: "other")
        try deleteRecordFile(of: "plan", in: writer)

        let reader = try sandbox.defaults()
        let refusals = try reader.refusals()
        // A fresh view never opened the entry, so it knows it by its record name only.
        XCTAssertEqual(refusals.mapValues(\.code), [writer.recordName(forKey: "plan"): Self.missing])
        XCTAssertEqual(reader.string(forKey: "other"), "kept", "one missing entry does not take the suite down")
        XCTAssertNil(reader.dictionaryRepresentation()["plan"])
    }

    func testAViewThatReadTheKeyListsItsMissingEntryUnderTheKeyAfterAReload() throws {
        let writer = try sandbox.defaults()
        try writer.set("pro", forKey: "plan")
        XCTAssertEqual(writer.string(forKey: "plan"), "pro")
        try deleteRecordFile(of: "plan", in: writer)
        writer.reload()

        XCTAssertEqual(try writer.refusals().mapValues(\.code), ["plan": Self.missing])
        XCTAssertEqual(Self.refusal(of: "plan", in: writer)?.code, Self.missing)
    }

    func testEmptyingTheWholeRecordsDirectoryLeavesEveryEntryMissing() throws {
        let writer = try sandbox.defaults()
        try writer.set("pro", forKey: "plan")
        try writer.set("dark", forKey: "theme")
        let records = try XCTUnwrap(try sandbox.recordFiles().first).deletingLastPathComponent()
        try FileManager.default.removeItem(at: records)

        let reader = try sandbox.defaults()
        XCTAssertEqual(Self.refusal(of: "plan", in: reader)?.code, Self.missing)
        XCTAssertEqual(Self.refusal(of: "theme", in: reader)?.code, Self.missing)
        XCTAssertEqual(try reader.refusals().count, 2)
    }

    func testAMissingEntryReadsAsItsRegisteredDefaultInTheNonThrowingGetters() throws {
        let writer = try sandbox.defaults()
        try writer.set(false, forKey: "onboarded")
        try deleteRecordFile(of: "onboarded", in: writer)
        let reader = try sandbox.defaults()
        reader.register(values: ["onboarded": .bool(true)])

        // As for any refused entry: getters never throw, the reason is in value(forKey:).
        XCTAssertTrue(reader.bool(forKey: "onboarded"))
        XCTAssertEqual(Self.refusal(of: "onboarded", in: reader)?.code, Self.missing)
    }

    func testAKeyRemovedWithRemoveObjectStillReadsAsNotSet() throws {
        let writer = try sandbox.defaults()
        try writer.set("pro", forKey: "plan")
        try writer.removeObject(forKey: "plan")

        let reader = try sandbox.defaults()
        XCTAssertNil(try reader.value(forKey: "plan"))
        XCTAssertEqual(try reader.refusals(), [:])
    }

    func testAKeyNeverSetIsNotMissing() throws {
        try sandbox.defaults().set(1, forKey: "other")
        let reader = try sandbox.defaults()
        XCTAssertNil(try reader.value(forKey: "plan"))
        XCTAssertEqual(try reader.refusals(), [:])
    }

    func testWritingAMissingKeyAgainRestoresIt() throws {
        let writer = try sandbox.defaults()
        try writer.set("pro", forKey: "plan")
        try deleteRecordFile(of: "plan", in: writer)
        try sandbox.defaults().set("free", forKey: "plan")

        XCTAssertEqual(try sandbox.defaults().value(forKey: "plan"), .string("free"))
    }

    func testRemovingAMissingKeyMakesItNotSet() throws {
        let writer = try sandbox.defaults()
        try writer.set("pro", forKey: "plan")
        try deleteRecordFile(of: "plan", in: writer)
        try sandbox.defaults().removeObject(forKey: "plan")

        let reader = try sandbox.defaults()
        XCTAssertNil(try reader.value(forKey: "plan"))
        XCTAssertEqual(try reader.refusals(), [:])
    }

    func testADeletionObservedLiveArrivesAsARefusalNotAsARemoval() throws {
        let observer = try sandbox.defaults()
        try observer.set("pro", forKey: "plan")
        let changes = try observer.changes(forKey: "plan")
        try deleteRecordFile(of: "plan", in: observer)
        let expectation = expectation(description: "the deletion arrives")
        let task = Task {
            for await _ in changes {
                // The first change is the deletion: on receipt the key must read as refused.
                do throws(SharedDefaultsError) {
                    XCTFail("expected a refusal, read \(String(describing: try observer.value(forKey: "plan")))")
                } catch {
                    XCTAssertEqual(error.vaultError?.code.rawValue, "missing", "\(error)")
                }
                expectation.fulfill()
                return
            }
        }
        wait(for: [expectation], timeout: 60)
        task.cancel()
    }

    func testTheChangeForADeletedFileCarriesTheMissingRefusal() throws {
        let observer = try sandbox.defaults()
        try observer.set("pro", forKey: "plan")
        let changes = try observer.changes(forKey: "plan")
        try deleteRecordFile(of: "plan", in: observer)
        let expectation = expectation(description: "the deletion arrives as a refusal")
        let task = Task {
            for await change in changes {
                XCTAssertEqual(change.key, "plan")
                XCTAssertEqual(change.refusal?.code, .missing, "\(change)")
                expectation.fulfill()
                return
            }
        }
        wait(for: [expectation], timeout: 60)
        task.cancel()
    }

    func testARemovalWithRemoveObjectArrivesWithoutARefusal() throws {
        let observer = try sandbox.defaults()
        try observer.set("pro", forKey: "plan")
        let changes = try observer.changes()
        try sandbox.defaults().removeObject(forKey: "plan")
        let expectation = expectation(description: "the removal arrives")
        let task = Task {
            for await change in changes {
                XCTAssertEqual(change.key, "plan")
                XCTAssertNil(change.refusal, "\(change)")
                XCTAssertNil(observer.object(forKey: "plan"))
                expectation.fulfill()
                return
            }
        }
        wait(for: [expectation], timeout: 60)
        task.cancel()
    }

    func testEntriesListValuesAndMissingEntriesWithTheirStates() throws {
        let writer = try sandbox.defaults()
        try writer.set("pro", forKey: "plan")
        try writer.set("dark", forKey: "theme")
        try writer.set(1, forKey: "removed")
        try writer.removeObject(forKey: "removed")
        try deleteRecordFile(of: "plan", in: writer)

        let entries = try sandbox.defaults().entries()
        XCTAssertEqual(entries.count, 2, "\(entries)")
        let theme = try XCTUnwrap(entries.first { $0.key == "theme" })
        XCTAssertEqual(theme.state, .value(.string("dark")))
        XCTAssertEqual(theme.recordName, writer.recordName(forKey: "theme"))
        let plan = try XCTUnwrap(entries.first { $0.recordName == writer.recordName(forKey: "plan") })
        XCTAssertNil(plan.key, "a fresh view never opened the entry, so it cannot know its key")
        guard case .refused(let error) = plan.state else { return XCTFail("\(plan)") }
        XCTAssertEqual(error.code, .missing)
    }
}
