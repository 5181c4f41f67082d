import CSQLite
import Foundation
import GroupVaultTestKit
@testable import Keyring
import XCTest

/// A wal-index header is read as SQLite's own readers read it before they take a lock, and
/// only a header SQLite would accept is read at all (``WALIndexHeader``). The layout and the
/// checksum are SQLite's "WAL-index header" (https://www.sqlite.org/walformat.html).
final class WALIndexHeaderTests: XCTestCase {
    func testAHeaderWhoseCopiesAgreeAndWhoseChecksumIsRightIsRead() {
        XCTAssertNotNil(header(of: region(copying: validWords())))
    }

    func testHeadersAreEqualExactlyWhenTheirBytesAre() {
        XCTAssertEqual(header(of: region(copying: validWords())), header(of: region(copying: validWords())))
        XCTAssertNotEqual(header(of: region(copying: validWords(changeCounter: 8))), header(of: region(copying: validWords())))
    }

    func testAHeaderWhoseTwoCopiesDifferIsNotRead() {
        // A writer writes the second copy, then the first: a read between the two sees them apart.
        XCTAssertNil(header(of: region(first: validWords(changeCounter: 7), second: validWords(changeCounter: 8))))
    }

    func testAnUninitialisedHeaderIsNotRead() {
        var words = validWords()
        words[3] &= ~0xFF
        XCTAssertNil(header(of: region(copying: withChecksum(words))))
    }

    func testAHeaderOfAnotherVersionIsNotRead() {
        var words = validWords()
        words[0] = 3_007_001
        XCTAssertNil(header(of: region(copying: withChecksum(words))))
    }

    func testAHeaderWithAWrongChecksumIsNotRead() {
        var words = validWords()
        words[11] &+= 1
        XCTAssertNil(header(of: region(copying: words)))
    }

    func testTheHeaderOfALiveDatabaseIsReadAndMovesWithEachCommit() throws {
        let directory = try TemporaryDirectory(prefix: "groupvault-wal-index")
        defer { directory.remove() }
        var connection: OpaquePointer?
        XCTAssertEqual(sqlite3_open_v2(directory.url.appendingPathComponent("live.db").path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil), SQLITE_OK)
        defer { sqlite3_close_v2(connection) }
        let handle = try XCTUnwrap(connection)
        for sql in ["PRAGMA journal_mode = WAL", "CREATE TABLE t (x)", "INSERT INTO t VALUES (1)", "SELECT * FROM t"] {
            XCTAssertEqual(sqlite3_exec(handle, sql, nil, nil, nil), SQLITE_OK, sql)
        }

        let first = try XCTUnwrap(WALIndexHeader(of: handle), "SQLite's own header reads as one SQLite accepts")
        XCTAssertEqual(WALIndexHeader(of: handle), first)
        XCTAssertEqual(sqlite3_exec(handle, "INSERT INTO t VALUES (2)", nil, nil, nil), SQLITE_OK)
        XCTAssertNotEqual(WALIndexHeader(of: handle), first)
    }

    // MARK: Arrangement

    /// A header SQLite would accept: version 3007000, initialised, 4,096-byte pages, frames and
    /// salts made up, and the checksum over its first 40 bytes.
    private func validWords(changeCounter: UInt32 = 7) -> [UInt32] {
        // isInit = 1, bigEndCksum = 0, szPage = 4096 (0x1000), in memory order.
        let flagsAndPageSize = UInt32(littleEndian: UInt32(1) | UInt32(0x1000) << 16)
        return withChecksum([3_007_000, 0, changeCounter, flagsAndPageSize, 12, 3, 0xA1, 0xB2, 0xC3, 0xD4, 0, 0])
    }

    /// `words` with the header's checksum, as walformat.html describes it: the WAL checksum
    /// over the first 40 bytes in native byte order, starting from zero.
    private func withChecksum(_ words: [UInt32]) -> [UInt32] {
        var (s1, s2): (UInt32, UInt32) = (0, 0)
        for index in stride(from: 0, to: 10, by: 2) {
            s1 = s1 &+ words[index] &+ s2
            s2 = s2 &+ words[index + 1] &+ s1
        }
        var result = words
        result[10] = s1
        result[11] = s2
        return result
    }

    private func region(copying words: [UInt32]) -> [UInt32] { region(first: words, second: words) }
    private func region(first: [UInt32], second: [UInt32]) -> [UInt32] { first + second }

    private func header(of region: [UInt32]) -> WALIndexHeader? {
        region.withUnsafeBytes { WALIndexHeader(region: $0.baseAddress!) }
    }
}
