import Foundation
import GroupSyncCore
import GroupSyncTestKit
import SealedStorage
import XCTest
@testable import GroupSync

/// A space's notification payload (docs/SYNC.md, section 6, "Notifications"): the server
/// computes it in the compare-and-swap, a listener reads it, and a row it carries is only a head
/// start that is judged as every row is.
final class ChangeNotificationTests: SyncServerTestCase {
    private let entryName = [UInt8](repeating: 0xab, count: 32)

    /// The payload the server computes for a written row, as the compare-and-swap sends it.
    private func payload(change: Int64, sequence: Int64, name: [UInt8], blob: [UInt8]) throws -> String {
        try server.psql("""
            SELECT \(ChangeNotification.payloadExpression) FROM (SELECT \(change)::bigint AS change, \(sequence)::bigint AS sequence,
                decode('\(Hex.lowercase(name))', 'hex') AS name, decode('\(Hex.lowercase(blob))', 'hex') AS blob) AS written
            """).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testTheServersPayloadForASmallRowCarriesTheRow() throws {
        let blob = [UInt8](repeating: 0x5a, count: ChangeNotification.largestNotifiedBlob)
        let text = try payload(change: 42, sequence: 7, name: entryName, blob: blob)

        XCTAssertLessThan(text.utf8.count, 8000, "PostgreSQL refuses payloads of 8,000 bytes or more")
        XCTAssertEqual(ChangeNotification(payload: text).row, ServerRow(name: entryName, sequence: 7, change: 42, blob: blob))
    }

    func testTheServersPayloadForALargerRowIsTheChangeNumberAlone() throws {
        let blob = [UInt8](repeating: 0x5a, count: ChangeNotification.largestNotifiedBlob + 1)
        let text = try payload(change: 42, sequence: 7, name: entryName, blob: blob)

        XCTAssertEqual(text, "42")
        XCTAssertNil(ChangeNotification(payload: text).row)
    }

    func testAPayloadThatIsNotTheRowFormCarriesNoRow() {
        let hexName = Hex.lowercase(entryName)
        for payload in ["", "42", "42 7 \(hexName)", "42 7 \(hexName) zz", "42 7 \(hexName.dropLast(2)) 00", "42 x \(hexName) 00", "42 7 \(hexName) ", "42  7 \(hexName) 00"] {
            XCTAssertNil(ChangeNotification(payload: payload).row, payload)
        }
    }

    func testARowForgedInANotificationIsNeitherUsedNorCounted() async throws {
        let writer = try sandbox.store(0, url: server.url)
        let reader = try sandbox.store(1, url: server.url)
        let changes = reader.externalChanges()
        reader.start()
        try writer.setValue(.string("genuine"), forKey: "token")
        try await writer.synchronizeWithServer()
        let first = await waitForChange(changes) { reader.string(forKey: "token") == "genuine" }
        XCTAssertTrue(first, "\(reader.status)")

        // Anyone who can reach the server can notify the space's channel: send the stored row one
        // sequence higher with one byte of its blob changed.
        let row = try server.psql("""
            SELECT 'gs_' || encode(substring(space from 1 for 16), 'hex'), change, sequence + 1, encode(name, 'hex'),
                encode(set_byte(blob, 100, get_byte(blob, 100) # 1), 'hex') FROM groupsync_entry
            """).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|")
        try server.psql("NOTIFY \(row[0]), '\(row[1]) \(row[2]) \(row[3]) \(row[4])'")
        // Notifications are handled in order: once a later genuine write is seen, the forged
        // row has been judged.
        try writer.setValue(.string("later"), forKey: "token")
        try await writer.synchronizeWithServer()
        let arrived = await waitForChange(changes) { reader.string(forKey: "token") == "later" }
        await reader.stop()

        XCTAssertTrue(arrived, "\(reader.status)")
        XCTAssertEqual(reader.status.refusals, [:], "a refused notified row is left to the catch-up, which found no such row")
        XCTAssertEqual(reader.string(forKey: "token"), "later")
    }
}
