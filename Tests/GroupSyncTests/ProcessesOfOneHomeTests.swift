import Foundation
@testable import GroupSync
import GroupSyncTestKit
import Keyring
import XCTest

/// Two stores of one home, as a daemon and its widget or CLI keep them: each is a process of
/// its own as far as the store's files and locks go (a lock is held by an open file, not by a
/// process). `MultiMachineSyncTests.testTwoProcessesOfOneHomeWritingAtOnceLoseNoWrite` runs
/// the same with real processes.
final class ProcessesOfOneHomeTests: SyncSandboxTestCase {
    private func store() throws -> UbiquitousKeyValueStore { try sandbox.store(0, url: nil) }

    func testWritesOfTwoStoresOfOneHomeInTurnAreAllReadBackByAThird() throws {
        let daemon = try store()
        let widget = try store()
        for index in 0..<50 {
            daemon.set("daemon \(index)", forKey: "d\(index % 10)")
            widget.set("widget \(index)", forKey: "w\(index % 10)")
        }

        let reopened = try store()
        for key in 0..<10 {
            XCTAssertEqual(reopened.string(forKey: "d\(key)"), "daemon \(40 + key)")
            XCTAssertEqual(reopened.string(forKey: "w\(key)"), "widget \(40 + key)")
        }
        XCTAssertEqual(reopened.status.pendingWrites, 20)
    }

    func testAStoreReadsTheWritesOfAnotherStoreOfItsHomeBeforeItWrites() throws {
        let daemon = try store()
        let widget = try store()
        widget.set("light", forKey: "theme")
        daemon.set("en", forKey: "language")

        XCTAssertEqual(daemon.string(forKey: "theme"), "light")
        XCTAssertEqual(daemon.dictionaryRepresentation.count, 2)
    }

    func testAStoreIsToldOfAWriteOfAnotherStoreOfItsHomeWithoutActing() async throws {
        let daemon = try store()
        let widget = try store()
        let changes = daemon.externalChanges()

        widget.set("dark", forKey: "theme")
        let told = await waitForChange(changes) { daemon.string(forKey: "theme") == "dark" }
        XCTAssertTrue(told)
        XCTAssertEqual(daemon.string(forKey: "theme"), "dark")
    }

    func testTheChangeAnotherStoreOfTheHomeMadeIsToldAsAServerChangeNamingItsKeys() async throws {
        let daemon = try store()
        let widget = try store()
        let changes = daemon.externalChanges()

        widget.set("dark", forKey: "theme")
        let change = await firstChange(changes)
        XCTAssertEqual(change, UbiquitousChange(reason: .serverChange, changedKeys: ["theme"]))
    }

    func testAStoreDoesNotTellItsOwnWritesAsExternalChanges() async throws {
        let daemon = try store()
        let widget = try store()
        let changes = daemon.externalChanges()

        daemon.set("mine", forKey: "own")
        widget.set("theirs", forKey: "other")
        let change = await firstChange(changes)
        XCTAssertEqual(change, UbiquitousChange(reason: .serverChange, changedKeys: ["other"]), "the daemon's own write came first and was not told")
    }

    func testAStoresOwnWritesDoNotMakeItReadTheStoreAgain() async throws {
        let daemon = try store()
        let widget = try store()
        let changes = daemon.externalChanges()

        let rounds = 20
        for round in 0..<rounds {
            for index in 0..<5 { daemon.set("mine \(round).\(index)", forKey: "own") }
            widget.set("theirs \(round)", forKey: "other")
            // The watch hears of the journal's closes in order: once the widget's write is told,
            // every close of the daemon's own writes before it was heard.
            let told = await waitForChange(changes) { daemon.string(forKey: "other") == "theirs \(round)" }
            XCTAssertTrue(told)
        }
        XCTAssertEqual(daemon.replica.readsStartedByTheWatch.withLock { $0 }, rounds, "only the widget's writes, one append each, made the daemon read the store again")
    }

    func testEveryWriteOfABurstOfAnotherStoreOfTheHomeIsTold() async throws {
        let daemon = try store()
        let widget = try store()
        let changes = daemon.externalChanges()

        // The daemon's watch hears of these while a read it started is still pending, and
        // leaves them to that read.
        for index in 0..<100 { widget.set("value \(index)", forKey: "k\(index)") }
        let told = await waitForChange(changes) { daemon.dictionaryRepresentation.count == 100 }
        XCTAssertTrue(told)
        XCTAssertEqual(daemon.string(forKey: "k99"), "value 99")
    }
}

/// Two stores of one home with a server: the session of one pushes what the other wrote
/// (`OneRoundAtATimeTests` has their rounds).
final class ProcessesOfOneHomeSyncTests: SyncServerTestCase {
    func testAWriteOfAStoreWithoutASessionIsPushedByTheSessionOfAnotherStoreOfItsHome() async throws {
        let daemon = try sandbox.store(0, url: server.url)
        let widget = try sandbox.store(0, url: nil)
        let elsewhere = try sandbox.store(1, url: server.url)
        let changes = elsewhere.externalChanges()
        daemon.start()
        elsewhere.start()

        widget.set("dark", forKey: "theme")
        let arrived = await waitForChange(changes) { elsewhere.string(forKey: "theme") == "dark" }
        await daemon.stop()
        await elsewhere.stop()
        XCTAssertTrue(arrived, "daemon: \(daemon.status)")
        XCTAssertEqual(widget.status.pendingWrites, 0, "the widget reads the daemon's push back")
    }
}
