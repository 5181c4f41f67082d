import Foundation
import GroupVaultTestKit
import SealedStorage
import SystemPackage
import XCTest
@testable import GroupSync

/// The replica's durable state: a snapshot plus a journal of changes (docs/SYNC.md, section 7,
/// "The journal"). Each test changes the state through the store, then reads it back as a new
/// process would, by opening the files again.
final class ReplicaStateStoreTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var handle: DirectoryHandle!
    private var file: ReplicaStateFile!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "replica-state")
        handle = try DirectoryHandle(opening: FilePath(directory.path), sharing: .ownerOnly)
        file = ReplicaStateFile(directory: handle, label: "s-test", key: SymmetricKey())
    }

    override func tearDown() {
        directory?.remove()
    }

    // MARK: Arrangement

    private var journalURL: URL { directory.url.appendingPathComponent("s-test.journal") }
    private var snapshotURL: URL { directory.url.appendingPathComponent("s-test.state") }

    /// A state with `count` entries, each seen at `seen`, and the cursor there.
    private func state(entries count: Int, seen: UInt64, from base: ReplicaState = ReplicaState()) -> ReplicaState {
        var state = base
        for index in 0..<count {
            state.entries[EntryName(hex: String(format: "%064x", index))!] = ReplicaState.Entry(
                seen: seen, seenDigest: [UInt8](repeating: UInt8(seen & 0xff), count: 32), accepted: [UInt8](repeating: 7, count: 100))
        }
        state.cursor = Int64(seen)
        return state
    }

    /// Opens the store as a new process would.
    private func reopen(compactionFloor: Int = ReplicaStateStore.compactionFloor) throws -> (store: ReplicaStateStore, state: ReplicaState) {
        try ReplicaStateStore.open(file, compactionFloor: compactionFloor)
    }

    /// A store that holds `first` (compacted into its snapshot) and then `second` (as one
    /// journal record).
    private func storeHoldingTwoStates(_ first: ReplicaState, _ second: ReplicaState) throws -> ReplicaStateStore {
        var store = try reopen().store
        try store.save(first, replacing: ReplicaState())
        try store.save(second, replacing: first)
        return store
    }

    /// A first sync's catch-up: twenty pages that each add ten entries, appended as the
    /// catch-up appends them; (journal, snapshot) sizes after each.
    private func firstSyncPages(_ store: inout ReplicaStateStore) throws -> (state: ReplicaState, sizes: [(journal: Int, snapshot: Int)]) {
        var current = ReplicaState()
        var sizes: [(journal: Int, snapshot: Int)] = []
        for page in 1...20 {
            var next = current
            for index in 0..<10 {
                next.entries[EntryName(hex: String(format: "%064x", page * 10 + index))!] = ReplicaState.Entry(
                    seen: 1, seenDigest: [UInt8](repeating: 1, count: 32), accepted: [UInt8](repeating: 7, count: 100))
            }
            next.cursor = Int64(page)
            try store.save(next, replacing: current, compaction: .afterTheCatchUp)
            current = next
            sizes.append((try journalBytes().count, try Data(contentsOf: snapshotURL).count))
        }
        return (current, sizes)
    }

    /// Starts again from no state, for a test that tries each step in turn.
    private func removeStateFiles() {
        try? FileManager.default.removeItem(at: journalURL)
        try? FileManager.default.removeItem(at: snapshotURL)
    }

    private func journalBytes() throws -> [UInt8] { Array(try Data(contentsOf: journalURL)) }

    private func writeJournal(_ bytes: [UInt8]) throws { try write(bytes, to: journalURL) }

    /// Writes a file as the store would find it: owner-only, as its directory's sharing requires.
    private func write(_ bytes: [UInt8], to url: URL) throws {
        try Data(bytes).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }

    // MARK: Replay

    func testChangesSavedAreReadBackAfterReopening() throws {
        let first = state(entries: 3, seen: 1)
        let second = state(entries: 5, seen: 2, from: first)
        var third = second
        third.entries[EntryName(hex: String(format: "%064x", 1))!]?.pending = [1, 2, 3]
        third.superseded = 4
        var store = try storeHoldingTwoStates(first, second)
        try store.save(third, replacing: second)

        XCTAssertEqual(try reopen().state, third)
    }

    func testAChangeAppendsToTheJournalAndLeavesTheSnapshotAsItWas() throws {
        let first = state(entries: 50, seen: 1)
        var store = try reopen().store
        try store.save(first, replacing: ReplicaState())
        let snapshot = try Data(contentsOf: snapshotURL)
        let journalSize = try journalBytes().count

        var second = first
        second.entries[EntryName(hex: String(format: "%064x", 7))!]?.seen = 2
        try store.save(second, replacing: first)

        XCTAssertEqual(try Data(contentsOf: snapshotURL), snapshot, "a change must not rewrite the whole state")
        let appended = try journalBytes().count - journalSize
        XCTAssertLessThan(appended, snapshot.count / 10, "a record holds the changed entry, not all fifty")
        XCTAssertEqual(try reopen().state, second)
    }

    func testAChangeLeftToTheNextFlushIsAppendedWithoutAnFdatasyncAndReadBack() throws {
        let first = state(entries: 2, seen: 1)
        var store = try reopen().store
        try store.save(first, replacing: ReplicaState())
        let second = state(entries: 2, seen: 2, from: first)
        guard case .record(let record) = ReplicaJournal.change(from: first, to: second, among: nil) else {
            return XCTFail("a change of two entries must be a journal record")
        }

        // Any fdatasync of the journal fails here: this append makes none.
        try FaultInjection.withFault(.fail(.ioError), at: .step(.syncAppended)) { () throws -> Void in
            try store.append(record, flush: .withNextFlush) { second }
        }
        XCTAssertEqual(try reopen().state, second)
        XCTAssertThrowsError(try FaultInjection.withFault(.fail(.ioError), at: .step(.syncAppended)) { () throws -> Void in
            try store.append(record, flush: .beforeReturning) { second }
        }, "a record flushed before returning must reach its fdatasync")
    }

    func testAStoreWithNoFilesOpensEmpty() throws {
        XCTAssertEqual(try reopen().state, ReplicaState())
    }

    // MARK: Torn and forged records

    func testATornLastRecordIsIgnoredAndTheRecordsBeforeItKept() throws {
        let first = state(entries: 2, seen: 1)
        let second = state(entries: 2, seen: 2, from: first)
        var store = try storeHoldingTwoStates(first, second)
        let third = state(entries: 2, seen: 3, from: second)
        let whole = try journalBytes()
        try store.save(third, replacing: second)
        let withThird = try journalBytes()

        for cut in [whole.count + 2, whole.count + 4 + 10, withThird.count - 1] {
            try writeJournal(Array(withThird.prefix(cut)))
            XCTAssertEqual(try reopen().state, second, "a record cut at byte \(cut) must be ignored whole")
        }
    }

    func testAJournalWithATornTailIsReplacedByTheNextSaveSoThatNewRecordsAreRead() throws {
        let first = state(entries: 2, seen: 1)
        let second = state(entries: 2, seen: 2, from: first)
        _ = try storeHoldingTwoStates(first, second)
        try writeJournal(try journalBytes().dropLast(5))

        let opened = try reopen()
        var store = opened.store
        let reopened = opened.state
        XCTAssertEqual(reopened, first)
        XCTAssertTrue(store.compactsNext, "nothing may be appended after a torn record")
        let third = state(entries: 2, seen: 3, from: reopened)
        try store.save(third, replacing: reopened)
        let fourth = state(entries: 2, seen: 4, from: third)
        try store.save(fourth, replacing: third)

        XCTAssertEqual(try reopen().state, fourth)
    }

    func testARecordAlteredWithoutTheKeyIsNotApplied() throws {
        let first = state(entries: 2, seen: 1)
        let second = state(entries: 2, seen: 2, from: first)
        _ = try storeHoldingTwoStates(first, second)
        var bytes = try journalBytes()
        bytes[ReplicaJournal.headerSize + 4 + 3] ^= 0x01
        try writeJournal(bytes)

        XCTAssertEqual(try reopen().state, first)
    }

    /// Each record's tag is chained from the one before: a record dropped from the middle (by
    /// someone who can write the container) leaves the records after it unverifiable.
    func testARecordDroppedFromTheMiddleLeavesOnlyTheRecordsBeforeIt() throws {
        let first = state(entries: 2, seen: 1)
        let second = state(entries: 2, seen: 2, from: first)
        let third = state(entries: 2, seen: 3, from: second)
        var store = try storeHoldingTwoStates(first, second)
        let afterOneRecord = try journalBytes()
        try store.save(third, replacing: second)
        let afterTwoRecords = try journalBytes()
        let secondRecordStart = afterOneRecord.count
        let secondRecordLength = afterTwoRecords.count - afterOneRecord.count
        // The journal with its first record (second) dropped, the record of third kept.
        let firstRecordStart = ReplicaJournal.headerSize
        try writeJournal(Array(afterTwoRecords[..<firstRecordStart]) + Array(afterTwoRecords[secondRecordStart..<(secondRecordStart + secondRecordLength)]))

        XCTAssertEqual(try reopen().state, first)
    }

    func testAJournalThatIsNotOneIsRefusedAsStorage() throws {
        _ = try storeHoldingTwoStates(state(entries: 1, seen: 1), state(entries: 1, seen: 2))
        try writeJournal(Array("not a journal at all".utf8))

        XCTAssertThrowsError(try reopen()) { error in
            XCTAssertEqual((error as? SyncError)?.code, .storage)
        }
    }

    // MARK: Compaction

    func testAJournalThatOutgrowsItsSnapshotIsCompactedIntoIt() throws {
        var (store, current) = try reopen(compactionFloor: 1)
        current.initialSyncDone = true
        var sizes: [Int] = []
        for seen in 1...20 {
            let next = state(entries: 10, seen: UInt64(seen), from: current)
            try store.save(next, replacing: current)
            current = next
            sizes.append(try journalBytes().count)
        }

        XCTAssertTrue(sizes.contains(ReplicaJournal.headerSize), "some save must have started a new journal: \(sizes)")
        XCTAssertLessThanOrEqual(sizes.max() ?? 0, try Data(contentsOf: snapshotURL).count + sizes[1], "the journal stays within its snapshot and one record")
        XCTAssertEqual(try reopen().state, current)
    }

    func testDuringAFirstSyncTheJournalGrowsPastItsSnapshotToTwiceItBeforeItIsCompacted() throws {
        var (store, current) = try reopen(compactionFloor: 1)
        let whole = state(entries: 20, seen: 1)
        try store.save(whole, replacing: current)
        current = whole
        // (journal, snapshot) sizes after each save that changes one entry of twenty.
        var sizes: [(journal: Int, snapshot: Int)] = []
        for seen in 2...80 {
            var next = current
            next.entries[EntryName(hex: String(format: "%064x", seen % 20))!]?.seen = UInt64(seen)
            try store.save(next, replacing: current)
            current = next
            sizes.append((try journalBytes().count, try Data(contentsOf: snapshotURL).count))
        }

        XCTAssertFalse(current.initialSyncDone)
        XCTAssertTrue(sizes.contains { $0.journal > $0.snapshot }, "the journal must outgrow its snapshot: \(sizes)")
        XCTAssertTrue(sizes.allSatisfy { $0.journal <= 2 * $0.snapshot }, "the journal must stay within twice its snapshot: \(sizes)")
        XCTAssertTrue(sizes.contains { $0.journal == ReplicaJournal.headerSize }, "some save must have started a new journal: \(sizes)")
        XCTAssertEqual(try reopen().state, current)
    }

    func testTheCatchUpOfAFirstSyncAppendsEveryPageWithoutCompactingTheJournal() throws {
        var store = try reopen(compactionFloor: 1).store

        let (current, sizes) = try firstSyncPages(&store)

        // The first page creates the journal (there is none yet); every later one is appended.
        XCTAssertTrue(sizes.dropFirst().allSatisfy { $0.snapshot == sizes[0].snapshot }, "no page after the first may rewrite the snapshot: \(sizes)")
        XCTAssertEqual(sizes.map(\.journal), sizes.map(\.journal).sorted(), "the journal must only grow: \(sizes)")
        XCTAssertGreaterThan(sizes.last?.journal ?? 0, 2 * (sizes.last?.snapshot ?? 0), "the journal must outgrow the limit a save when due keeps")
        XCTAssertEqual(try reopen().state, current)
    }

    func testAJournalLeftToGrowByAFirstSyncIsCompactedOnceItsCatchUpIsComplete() throws {
        var store = try reopen(compactionFloor: 1).store
        var (current, _) = try firstSyncPages(&store)
        var done = current
        done.initialSyncDone = true
        try store.save(done, replacing: current, compaction: .afterTheCatchUp)
        current = done

        try store.compactIfDue(current)

        XCTAssertEqual(try journalBytes().count, ReplicaJournal.headerSize, "the journal must start again from the new snapshot")
        XCTAssertEqual(try reopen().state, current)
    }

    func testAJournalWithinItsLimitIsNotCompactedWhenACatchUpCompletes() throws {
        var store = try reopen().store
        let (current, sizes) = try firstSyncPages(&store)

        try store.compactIfDue(current)

        XCTAssertEqual(try journalBytes().count, sizes.last?.journal, "a journal within 1 MiB must be left as it is")
        XCTAssertEqual(try reopen().state, current)
    }

    func testAStaleJournalLeftByAnInterruptedCompactionIsIgnored() throws {
        let first = state(entries: 2, seen: 1)
        let second = state(entries: 2, seen: 2, from: first)
        var store = try storeHoldingTwoStates(first, second)
        let stale = try journalBytes()
        let third = state(entries: 3, seen: 3, from: second)
        try store.compact(third)
        // A crash after the new snapshot was durable, before the new journal replaced the old.
        try writeJournal(stale)

        XCTAssertEqual(try reopen().state, third)
    }

    // MARK: A journal started after the state is shown

    /// A store that held two states and was then compacted into a third, with its journal left
    /// awaited as a fresh machine leaves it when it takes the server's snapshot; that third
    /// state, and the journal's bytes before the compaction.
    private func storeAwaitingItsJournal() throws -> (store: ReplicaStateStore, state: ReplicaState, oldJournal: [UInt8]) {
        let first = state(entries: 2, seen: 1)
        let second = state(entries: 2, seen: 2, from: first)
        let third = state(entries: 3, seen: 3, from: second)
        var store = try storeHoldingTwoStates(first, second)
        let oldJournal = try journalBytes()
        try store.compact(third, startingTheJournal: .afterShowing)
        return (store, third, oldJournal)
    }

    func testAStateCompactedWithItsJournalAwaitedIsReadFromItsSnapshotWithTheOldJournalIgnored() throws {
        let (store, third, oldJournal) = try storeAwaitingItsJournal()

        XCTAssertEqual(try journalBytes(), oldJournal, "the journal must not be started before it is asked for")
        XCTAssertTrue(store.awaitsJournal)
        XCTAssertEqual(try reopen().state, third)
    }

    func testAnAwaitedJournalStartedLaterFollowsTheSnapshotAndTakesAppends() throws {
        var (store, third, _) = try storeAwaitingItsJournal()
        let snapshot = try snapshotBytes()

        try store.startAwaitedJournal()
        let fourth = state(entries: 3, seen: 4, from: third)
        try store.save(fourth, replacing: third)

        XCTAssertFalse(store.awaitsJournal)
        XCTAssertTrue(try snapshotBytes() == snapshot, "the change must be appended, not compacted")
        XCTAssertEqual(try reopen().state, fourth)
    }

    func testTheNextSaveStartsAnAwaitedJournalAndAppendsToIt() throws {
        var (store, third, _) = try storeAwaitingItsJournal()
        let snapshot = try snapshotBytes()

        let fourth = state(entries: 3, seen: 4, from: third)
        try store.save(fourth, replacing: third)

        XCTAssertFalse(store.awaitsJournal)
        XCTAssertTrue(try snapshotBytes() == snapshot, "the change must be appended, not compacted")
        XCTAssertGreaterThan(try journalBytes().count, ReplicaJournal.headerSize)
        XCTAssertEqual(try reopen().state, fourth)
    }

    func testAnAwaitedJournalThatFailsToStartAtAnyStepLosesNothingAndIsStartedByTheNextSave() throws {
        for step in FaultPoint.fileLayerSteps {
            removeStateFiles()
            var (store, third, _) = try storeAwaitingItsJournal()
            let snapshot = try snapshotBytes()

            XCTAssertThrowsError(try FaultInjection.withFault(.fail(.noSpace), at: .step(step)) { () throws -> Void in
                try store.startAwaitedJournal()
            }, "the failure at \(step) must reach the caller")
            XCTAssertEqual(try reopen().state, third, "after a failure at \(step)")

            let fourth = state(entries: 3, seen: 4, from: third)
            try store.save(fourth, replacing: third)
            XCTAssertTrue(try snapshotBytes() == snapshot, "after a failure at \(step), the next change must start the journal, not compact")
            XCTAssertEqual(try reopen().state, fourth, "the save after a failure at \(step) was lost")
        }
    }

    func testAChangeThatRemovesEntriesIsWrittenAsANewSnapshot() throws {
        let first = state(entries: 4, seen: 1)
        var store = try reopen().store
        try store.save(first, replacing: ReplicaState())
        var reset = ReplicaState()
        reset.refusals = ["rollback": 1]
        try store.save(reset, replacing: first)

        XCTAssertEqual(try journalBytes().count, ReplicaJournal.headerSize)
        XCTAssertEqual(try reopen().state, reset)
    }

    // MARK: Crashes at each step

    func testAnAppendThatFailsAtEitherStepLeavesTheOldStateOrTheNewWholeAndTheNextSaveIsKept() throws {
        for step in FaultPoint.appendSteps {
            removeStateFiles()
            let first = state(entries: 2, seen: 1)
            var store = try reopen().store
            try store.save(first, replacing: ReplicaState())
            let second = state(entries: 3, seen: 2, from: first)

            XCTAssertThrowsError(try FaultInjection.withFault(.fail(.ioError), at: .step(step)) { () throws -> Void in
                try store.save(second, replacing: first)
            }, "the failure at \(step) must reach the writer")
            let afterCrash = try reopen().state
            XCTAssertTrue(afterCrash == first || afterCrash == second, "after a failure at \(step): neither the old nor the new state")

            let third = state(entries: 3, seen: 3, from: first)
            try store.save(third, replacing: first)
            XCTAssertEqual(try reopen().state, third, "the save after a failure at \(step) was lost")
        }
    }

    func testACompactionThatFailsAtAnyStepLosesNothingAcknowledged() throws {
        // Each file-layer step, in the snapshot's replace (pass 0) and the new journal's (pass 1).
        for step in FaultPoint.fileLayerSteps {
            for pass in 0...1 {
                removeStateFiles()
                let first = state(entries: 2, seen: 1)
                let second = state(entries: 2, seen: 2, from: first)
                var store = try storeHoldingTwoStates(first, second)
                let third = state(entries: 4, seen: 3, from: second)

                XCTAssertThrowsError(try FaultInjection.withFault(.fail(.noSpace), at: .step(step), afterPassing: pass) { () throws -> Void in
                    try store.compact(third)
                }, "the failure at \(step) (pass \(pass)) must reach the writer")
                let afterCrash = try reopen().state
                XCTAssertTrue(afterCrash == second || afterCrash == third, "after a failure at \(step) (pass \(pass)): \(afterCrash.cursor)")

                let fourth = state(entries: 4, seen: 4, from: third)
                try store.save(fourth, replacing: second)
                XCTAssertEqual(try reopen().state, fourth, "the save after a failure at \(step) (pass \(pass)) was lost")
            }
        }
    }

    // MARK: The snapshot's tag

    /// `parts` each as `u64be(length) ‖ bytes`, as docs/SYNC.md writes `frame`.
    private func framed(_ parts: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        for part in parts {
            withUnsafeBytes(of: UInt64(part.count).bigEndian) { bytes += $0 }
            bytes += part
        }
        return bytes
    }

    private func snapshotBytes() throws -> [UInt8] { Array(try Data(contentsOf: snapshotURL)) }

    /// Opening the store, expected to throw `storage`.
    private func assertOpeningIsRefusedAsStorage(_ message: String, line: UInt = #line) {
        XCTAssertThrowsError(try reopen(), message, line: line) { error in
            XCTAssertEqual((error as? SyncError)?.code, .storage, line: line)
        }
    }

    func testASnapshotIsItsBodyThenASaltAndAPoly1305TagUnderAOneTimeKeyOfTheSaltAndLabel() throws {
        let saved = state(entries: 3, seen: 5)
        try file.save(saved)

        let bytes = try snapshotBytes()
        let trailer = bytes.count - 32
        XCTAssertEqual(Array(bytes[..<5]), Array("GVSS".utf8) + [3])
        XCTAssertEqual(try ReplicaStateBinary.decode(bytes[5..<trailer]), saved)
        let salt = Array(bytes[trailer..<(trailer + 16)])
        let oneTimeKey = try SymmetricKey(bytes: Digest.keyedBLAKE2b256(framed([Array("state".utf8), Array("s-test".utf8), salt]), key: file.key))
        let expected = bytes[..<trailer].withUnsafeBytes { OneTimeAuthenticator.tag($0, oneTimeKey: oneTimeKey) }
        XCTAssertEqual(Array(bytes[(trailer + 16)...]), expected)
    }

    func testEverySnapshotWrittenHasASaltOfItsOwnSoNoOneTimeKeyTagsTwoBodies() throws {
        let saved = state(entries: 2, seen: 3)
        try file.save(saved)
        let first = try snapshotBytes()
        try file.save(saved)
        let second = try snapshotBytes()

        XCTAssertEqual(first.dropLast(32), second.dropLast(32), "the same state, the same body")
        XCTAssertNotEqual(first.suffix(32).prefix(16), second.suffix(32).prefix(16))
    }

    func testASnapshotWithABodyByteChangedIsRefusedAsStorage() throws {
        try file.save(state(entries: 2, seen: 3))
        var bytes = try snapshotBytes()
        bytes[bytes.count / 2] ^= 1
        try write(bytes, to: snapshotURL)

        assertOpeningIsRefusedAsStorage("a body altered without the key must not be trusted")
    }

    func testASnapshotWithItsSaltChangedIsRefusedAsStorage() throws {
        try file.save(state(entries: 2, seen: 3))
        var bytes = try snapshotBytes()
        bytes[bytes.count - 32] ^= 1
        try write(bytes, to: snapshotURL)

        assertOpeningIsRefusedAsStorage("another salt derives another one-time key")
    }

    func testASnapshotCopiedFromAnotherStoreOfTheSameGroupIsRefusedAsStorage() throws {
        let other = ReplicaStateFile(directory: handle, label: "s-other", key: file.key)
        try other.save(state(entries: 2, seen: 3))
        try write(Array(try Data(contentsOf: directory.url.appendingPathComponent(other.fileName))), to: snapshotURL)

        assertOpeningIsRefusedAsStorage("the label is part of the one-time key")
    }

    func testAJournalRecordIsItsLengthAndBodyThenASaltAndAPoly1305TagUnderAOneTimeKeyOfTheSaltVersionAndPrevious() throws {
        let first = state(entries: 2, seen: 1)
        let second = state(entries: 2, seen: 2, from: first)
        _ = try storeHoldingTwoStates(first, second)

        let bytes = try journalBytes()
        XCTAssertEqual(Array(bytes[..<5]), Array("GVSJ".utf8) + [3])
        let previous = Array(bytes[5..<ReplicaJournal.headerSize])
        let length = Int(bytes[ReplicaJournal.headerSize...].prefix(4).reduce(0) { $0 << 8 | UInt32($1) })
        let record = Array(bytes[ReplicaJournal.headerSize..<(ReplicaJournal.headerSize + 4 + length)])
        let tag = Array(bytes[(ReplicaJournal.headerSize + 4 + length)...])
        XCTAssertEqual(tag.count, 32, "one record")
        let oneTimeKey = try SymmetricKey(bytes: Digest.keyedBLAKE2b256(framed([Array("journal".utf8), Array("s-test".utf8), [3], previous, Array(tag[..<16])]), key: file.key))
        let expected = record.withUnsafeBytes { OneTimeAuthenticator.tag($0, oneTimeKey: oneTimeKey) }
        XCTAssertEqual(Array(tag[16...]), expected)
    }

    func testEveryJournalRecordHasASaltOfItsOwnSoNoOneTimeKeyTagsTwoRecords() throws {
        let first = state(entries: 2, seen: 1)
        let second = state(entries: 2, seen: 2, from: first)
        var store = try storeHoldingTwoStates(first, second)
        let firstRecordSalt = try journalBytes().suffix(32).prefix(16)
        try store.save(state(entries: 2, seen: 3, from: second), replacing: second)
        let secondRecordSalt = try journalBytes().suffix(32).prefix(16)

        XCTAssertNotEqual(Array(firstRecordSalt), Array(secondRecordSalt))
    }

    func testASnapshotWhoseVersionByteIsChangedTo2IsRefusedAsStorage() throws {
        try file.save(state(entries: 2, seen: 3))
        var bytes = try snapshotBytes()
        bytes[4] = 2
        try write(bytes, to: snapshotURL)

        assertOpeningIsRefusedAsStorage("a version 3 tag is not a version 2 tag")
    }

    // MARK: Version 2

    /// A version 2 snapshot of `saved`, built here as GroupSync wrote it before version 3: the
    /// binary body under the keyed BLAKE2b-256 of `frame(label) ‖ everything before`.
    private func writeVersion2Snapshot(of saved: ReplicaState) throws {
        let body = Array("GVSS".utf8) + [2] + ReplicaStateBinary.encode(saved)
        try write(body + Digest.keyedBLAKE2b256(framed([Array("s-test".utf8)]) + body, key: file.key), to: snapshotURL)
    }

    func testAVersion2SnapshotIsRead() throws {
        let saved = state(entries: 3, seen: 5)
        try writeVersion2Snapshot(of: saved)

        XCTAssertEqual(try reopen().state, saved)
    }

    func testAVersion2SnapshotAndItsJournalAreReadAndAppendedToAsTheyAre() throws {
        let saved = state(entries: 3, seen: 5)
        try writeVersion2Snapshot(of: saved)
        let snapshot = try snapshotBytes()
        var changed = saved
        changed.cursor = 6
        guard case .record(let change) = ReplicaJournal.change(from: saved, to: changed) else { return XCTFail("a new cursor is a record") }
        let record = try ReplicaJournal.record(change, after: Array(snapshot.suffix(32)), in: file)
        try writeJournal(ReplicaJournal.header(following: Array(snapshot.suffix(32))) + record.bytes)

        var (store, opened) = try reopen()
        XCTAssertEqual(opened, changed)
        var next = opened
        next.entries[EntryName(hex: String(format: "%064x", 1))!]?.seen = 9
        try store.save(next, replacing: opened)

        XCTAssertEqual(try snapshotBytes(), snapshot, "the version 2 snapshot stays until the next compaction")
        XCTAssertEqual(try reopen().state, next)
    }

    func testTheNextSnapshotAfterAVersion2OneIsVersion3() throws {
        let saved = state(entries: 3, seen: 5)
        try writeVersion2Snapshot(of: saved)
        var (store, opened) = try reopen()
        var fewer = opened
        fewer.entries.removeValue(forKey: EntryName(hex: String(format: "%064x", 0))!)
        try store.save(fewer, replacing: opened)
        opened = fewer

        XCTAssertEqual(try snapshotBytes()[4], 3)
        XCTAssertEqual(try reopen().state, opened)
    }

    // MARK: Migration

    func testAStateFileWrittenBeforeTheJournalExistedIsReadAndThenJournaled() throws {
        // The version 1 file as every earlier GroupSync wrote it, built here byte by byte.
        let old = state(entries: 3, seen: 5)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = Array("GVSS".utf8) + [1] + Array(try encoder.encode(old))
        try write(body + Digest.keyedBLAKE2b256(framed([Array("s-test".utf8)]) + body, key: file.key), to: snapshotURL)

        let opened = try reopen()
        var store = opened.store
        let migrated = opened.state
        XCTAssertEqual(migrated, old)
        let newer = state(entries: 4, seen: 6, from: migrated)
        try store.save(newer, replacing: migrated)

        XCTAssertTrue(FileManager.default.fileExists(atPath: journalURL.path))
        XCTAssertEqual(try reopen().state, newer)
    }

    // MARK: Version 1

    /// Fixtures/`directoryName` (see its README) copied into the store's directory: a snapshot
    /// and a journal of two records, as an earlier GroupSync wrote them.
    private func fixture(_ directoryName: String) throws -> ReplicaStateFile {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(directoryName)")
        for name in ["state", "journal"].map({ "\(ReplicaStateVersion1Fixture.label).\($0)" }) {
            try write(Array(try Data(contentsOf: fixture.appendingPathComponent(name))), to: directory.url.appendingPathComponent(name))
        }
        return ReplicaStateFile(directory: handle, label: ReplicaStateVersion1Fixture.label, key: try ReplicaStateVersion1Fixture.key())
    }

    /// Fixtures/journal-v1: as the GroupSync before version 2 wrote them.
    private func version1Fixture() throws -> ReplicaStateFile {
        try fixture("journal-v1")
    }

    /// The fixtures' journal, once copied (``fixture(_:)``).
    private var fixtureJournalURL: URL { directory.url.appendingPathComponent("\(ReplicaStateVersion1Fixture.label).journal") }

    /// Opening `fixture`, whose journal is of `version`, gives the state after its last record.
    private func assertReadWithEveryRecord(_ fixture: ReplicaStateFile, version: UInt8, line: UInt = #line) throws {
        XCTAssertEqual(try Data(contentsOf: fixtureJournalURL)[4], version, "the fixture must be a version \(version) journal", line: line)

        XCTAssertEqual(try ReplicaStateStore.open(fixture).state, ReplicaStateVersion1Fixture.states().last, line: line)
    }

    /// The first save after opening `fixture`, whose journal is of an earlier version, compacts:
    /// the next record goes into a current journal after a current snapshot, and both are read.
    private func assertTheFirstSaveWritesACurrentSnapshotAndJournal(_ fixture: ReplicaStateFile, line: UInt = #line) throws {
        var (store, state) = try ReplicaStateStore.open(fixture)
        XCTAssertTrue(store.compactsNext, "current records must never be appended to an earlier version's journal", line: line)
        var next = state
        next.cursor += 1
        try store.save(next, replacing: state)
        state = next
        next.entries[EntryName(hex: String(format: "%064x", 0))!]?.seen = 99
        try store.save(next, replacing: state)

        XCTAssertEqual(try Data(contentsOf: fixtureJournalURL)[4], ReplicaJournal.version, line: line)
        XCTAssertEqual(try Data(contentsOf: directory.url.appendingPathComponent(fixture.fileName))[4], ReplicaStateFile.version, line: line)
        XCTAssertEqual(try ReplicaStateStore.open(fixture).state, next, line: line)
    }

    /// `fixture`'s journal header changed to `version`: its records do not verify as that
    /// version's, so only the snapshot is read.
    private func assertAHeaderChanged(to version: UInt8, of fixture: ReplicaStateFile, appliesNoRecord line: UInt = #line) throws {
        var bytes = Array(try Data(contentsOf: fixtureJournalURL))
        bytes[4] = version
        try write(bytes, to: fixtureJournalURL)

        XCTAssertEqual(try ReplicaStateStore.open(fixture).state, ReplicaStateVersion1Fixture.states().first, "a version \(version) tag covers the version", line: line)
    }

    func testAVersion1SnapshotAndJournalAreReadWithEveryRecord() throws {
        try assertReadWithEveryRecord(try version1Fixture(), version: 1)
    }

    func testTheFirstSaveAfterAVersion1JournalWritesACurrentSnapshotAndJournal() throws {
        try assertTheFirstSaveWritesACurrentSnapshotAndJournal(try version1Fixture())
    }

    func testAVersion1JournalWhoseHeaderIsChangedToVersion2HasNoRecordApplied() throws {
        try assertAHeaderChanged(to: 2, of: try version1Fixture())
    }

    // MARK: Journal version 2

    /// Fixtures/journal-v2: a version 3 snapshot and a version 2 journal, as the GroupSync
    /// before journal version 3 wrote them.
    private func version2Fixture() throws -> ReplicaStateFile {
        try fixture("journal-v2")
    }

    func testAVersion2JournalIsReadWithEveryRecord() throws {
        try assertReadWithEveryRecord(try version2Fixture(), version: 2)
    }

    func testTheFirstSaveAfterAVersion2JournalWritesACurrentJournal() throws {
        try assertTheFirstSaveWritesACurrentSnapshotAndJournal(try version2Fixture())
    }

    func testAVersion2JournalWhoseHeaderIsChangedToVersion3HasNoRecordApplied() throws {
        try assertAHeaderChanged(to: 3, of: try version2Fixture())
    }

    // MARK: Refused

    func testAJournalOfAVersionAfter3IsRefusedAsStorage() throws {
        _ = try storeHoldingTwoStates(state(entries: 1, seen: 1), state(entries: 1, seen: 2))
        var bytes = try journalBytes()
        bytes[4] = 4
        try writeJournal(bytes)

        XCTAssertThrowsError(try reopen()) { error in
            XCTAssertEqual((error as? SyncError)?.code, .storage)
        }
    }

    func testAnAuthenticRecordThatIsNotABodyIsRefusedAsStorage() throws {
        var store = try reopen().store
        let first = state(entries: 1, seen: 1)
        try store.save(first, replacing: ReplicaState())
        var bytes = try journalBytes()
        // A record whose tag verifies but whose body is one byte that no state starts with.
        let body: [UInt8] = [0xff]
        let previous = Array(bytes[5..<ReplicaJournal.headerSize])
        let length: [UInt8] = [0, 0, 0, 1]
        bytes += length + body + ReplicaJournal.tag(of: (length + body)[...], previous: previous, in: file)
        try writeJournal(bytes)

        XCTAssertThrowsError(try reopen()) { error in
            XCTAssertEqual((error as? SyncError)?.code, .storage)
        }
    }
}
