import Foundation
import SharedDefaults
import XCTest

/// changes() and changes(forKey:) in one process (other processes: SharedDefaultsMultiProcessTests).
final class SharedDefaultsChangesTests: XCTestCase {
    private var sandbox: DefaultsSandbox!

    override func setUpWithError() throws { sandbox = try DefaultsSandbox() }
    override func tearDown() { sandbox.remove() }

    func testChangesNameTheKeyThatChangedInAnotherSuiteObject() throws {
        let observer = try sandbox.defaults()
        let changes = try observer.changes()
        try sandbox.defaults().set("dark", forKey: "theme")
        let expectation = expectation(description: "the change names its key")
        let task = Task {
            for await change in changes where change.key == "theme" {
                XCTAssertEqual(observer.string(forKey: "theme"), "dark", "a read on receipt sees the change")
                expectation.fulfill()
                return
            }
        }
        wait(for: [expectation], timeout: 60)
        task.cancel()
    }

    func testChangesForAKeyIgnoreOtherKeysAndOtherSuites() throws {
        let observer = try sandbox.defaults()
        let changes = try observer.changes(forKey: "wanted")
        let writer = try sandbox.defaults()
        try writer.set(1, forKey: "other")
        try sandbox.defaults("another suite").set(1, forKey: "wanted")
        try writer.set(2, forKey: "wanted")
        let expectation = expectation(description: "only the wanted key")
        let task = Task {
            for await change in changes {
                XCTAssertEqual(change.key, "wanted")
                // The first change delivered is the wanted key's: the others were filtered out.
                XCTAssertEqual(observer.integer(forKey: "wanted"), 2)
                expectation.fulfill()
                return
            }
        }
        wait(for: [expectation], timeout: 60)
        task.cancel()
    }

    func testARemovalIsAChange() throws {
        let observer = try sandbox.defaults()
        let writer = try sandbox.defaults()
        try writer.set(1, forKey: "gone")
        XCTAssertEqual(observer.integer(forKey: "gone"), 1)
        let changes = try observer.changes(forKey: "gone")
        try writer.removeObject(forKey: "gone")
        let expectation = expectation(description: "the removal arrives")
        let task = Task {
            for await _ in changes where observer.object(forKey: "gone") == nil {
                expectation.fulfill()
                return
            }
        }
        wait(for: [expectation], timeout: 60)
        task.cancel()
    }

    func testWarmReadsOfThousandsOfKeysReadNoEntryFromDisk() throws {
        let writer = try sandbox.defaults()
        for index in 0..<200 { try writer.set(index, forKey: "key\(index)") }
        let reader = try sandbox.defaults()
        XCTAssertEqual(reader.integer(forKey: "key0"), 0)
        let afterLoad = reader.entryReadCount
        XCTAssertEqual(afterLoad, 200, "the first read loads each entry once")
        for round in 0..<10 {
            for index in 0..<200 { XCTAssertEqual(reader.integer(forKey: "key\(index)"), index, "round \(round)") }
        }
        XCTAssertEqual(reader.entryReadCount, afterLoad, "nothing changed, so nothing was read again")
    }

    func testAChangeReReadsOnlyTheEntryThatChanged() throws {
        let writer = try sandbox.defaults()
        for index in 0..<20 { try writer.set(index, forKey: "key\(index)") }
        let reader = try sandbox.defaults()
        let changes = try reader.changes(forKey: "key7")
        XCTAssertEqual(reader.integer(forKey: "key7"), 7)
        let afterLoad = reader.entryReadCount
        try writer.set(70, forKey: "key7")
        let expectation = expectation(description: "the change arrives")
        let task = Task {
            for await _ in changes where reader.integer(forKey: "key7") == 70 {
                expectation.fulfill()
                return
            }
        }
        wait(for: [expectation], timeout: 60)
        task.cancel()
        XCTAssertEqual(reader.entryReadCount - afterLoad, 1, "one entry changed, one was read")
    }
}
