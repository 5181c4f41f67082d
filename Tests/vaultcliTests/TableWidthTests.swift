import Foundation
import XCTest

/// Tables fit the terminal's width (`COLUMNS`, else the window's size when standard output is
/// a terminal); output to a pipe or file is never wrapped.
final class TableWidthTests: VaultCLITestCase {
    private func addItem(label: String) throws {
        let added = try vaultcli("items", "add", "--group", sharedGroup, "--service", "api.example.com", "--account", "ada",
                                 "--label", label, input: "token\n")
        XCTAssertEqual(added.status, 0, added.transcript)
    }

    private let longLabel = "the production API token for the nightly export job"

    func testAWideTableWrapsItsWidestColumnsToFitColumns() throws {
        try addItem(label: longLabel)
        let result = try vaultcli("items", "list", environment: environment.merging(["COLUMNS": "80"]) { $1 })
        XCTAssertEqual(result.status, 0, result.transcript)
        XCTAssertEqual(result.output, """
            CLASS    GROUP         SERVICE/SERVER  ACCOUNT  LABEL         ACCESSIBLE    SYNC
            generic  ABCDE12345.c  api.example.co  ada      the           whenUnlocked  no
                     om.example.s  m                        production
                     hared                                  API token
                                                            for the
                                                            nightly
                                                            export job

            """)
        XCTAssertTrue(result.output.split(separator: "\n").allSatisfy { $0.count <= 80 }, result.output)
    }

    func testOutputThatIsNotToATerminalIsNotWrapped() throws {
        try addItem(label: longLabel)
        let result = try vaultcli("items", "list")
        XCTAssertEqual(result.output.split(separator: "\n").count, 2, result.output)
        XCTAssertTrue(result.output.contains(longLabel), result.output)
    }

    func testDoctorsFixColumnFitsEightyColumns() throws {
        try vault().write(Note(text: "x"), to: "note")
        let keychains = directory.url.appendingPathComponent("home/Keychains").path
        XCTAssertEqual(chmod(keychains, 0o755), 0)
        let result = try vaultcli("doctor", environment: environment.merging(["COLUMNS": "80"]) { $1 })
        XCTAssertEqual(result.status, 1, result.transcript)
        let lines = result.output.split(separator: "\n")
        XCTAssertTrue(lines.allSatisfy { $0.count <= 80 }, result.output)
        XCTAssertTrue(lines[0].hasPrefix("CHECK"), result.output)
        // The fix, wrapped, is all there: its pieces in the last column read back as the command.
        let fixColumn = try XCTUnwrap(lines[0].range(of: "FIX")).lowerBound.utf16Offset(in: lines[0])
        let pieces = lines.dropFirst().compactMap { line in line.count > fixColumn ? String(line.dropFirst(fixColumn)) : nil }
        XCTAssertTrue(pieces.joined().contains("chmod 700"), result.output)
    }
}
