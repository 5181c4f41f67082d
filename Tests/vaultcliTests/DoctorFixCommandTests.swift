import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Keyring
import Vault
import XCTest

/// `vaultcli doctor`'s printed fixes are safe to run whatever a planted file is named, and
/// `doctor --fix` makes them itself through the library, changing only what it examined.
final class DoctorFixCommandTests: VaultCLITestCase {
    /// A directory to run printed commands in: what they create there shows they did more
    /// than they said.
    private var scratch: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        scratch = directory.url.appendingPathComponent("scratch")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: false)
    }

    /// The records directory, with one record in it, so the home is otherwise healthy.
    private func records() throws -> URL {
        try vault().write(Note(text: "x"), to: "note")
        return URL(fileURLWithPath: try vault().recordsDirectory.string)
    }

    /// Plants the file `name` in `directory` with `mode`, as a member of the group could.
    @discardableResult
    private func plant(_ name: String, in directory: URL, mode: mode_t = 0o644) throws -> String {
        let path = directory.appendingPathComponent(name).path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("planted".utf8)))
        XCTAssertEqual(chmod(path, mode), 0)
        return path
    }

    private func findings(_ result: Run) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        return try XCTUnwrap(object?["findings"] as? [[String: Any]], result.transcript)
    }

    private func finding(_ check: String, about path: String, in result: Run) throws -> [String: Any] {
        try XCTUnwrap(try findings(result).first { $0["check"] as? String == check && $0["subject"] as? String == path }, result.transcript)
    }

    /// Runs `command` with `sh -c` in the scratch directory, as an operator pasting it would.
    @discardableResult
    private func shell(_ command: String, environment: [String: String] = [:]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.currentDirectoryURL = scratch
        process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { own, _ in own }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    private func mode(_ path: String) -> mode_t {
        var status = stat()
        XCTAssertEqual(lstat(path, &status), 0, path)
        return status.st_mode & 0o7777
    }

    private var scratchEntries: [String] { (try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? [] }

    // MARK: Printed commands

    func testAQuoteInAFileNameCannotEndTheQuotingOfThePrintedChmod() throws {
        // A file name cannot hold '/', so the planted command touches a relative name.
        let planted = try plant("x'; touch PWNED; '.gvr", in: try records())
        let fix = try XCTUnwrap(try finding("mode", about: planted, in: try vaultcli("doctor", "--json"))["fix"] as? String)
        try shell(fix)
        XCTAssertEqual(scratchEntries, [], "the printed fix ran a second command: \(fix)")
        XCTAssertEqual(mode(planted), 0o600, "the printed fix did not fix the planted file: \(fix)")
    }

    func testAQuoteFollowedByACombiningMarkCannotEndTheQuotingOfThePrintedChmod() throws {
        // `'` + U+0301 is one Character that is not `'`, so a search by Character does not find
        // the quote, yet its first byte ends the shell's quoting (the second attack pass).
        let planted = try plant("n'\u{301}; touch PWNED; '\u{301}.gvr", in: try records())
        let fix = try XCTUnwrap(try finding("mode", about: planted, in: try vaultcli("doctor", "--json"))["fix"] as? String)
        try shell(fix)
        XCTAssertEqual(scratchEntries, [], "the printed fix ran a second command: \(fix)")
        XCTAssertEqual(mode(planted), 0o600, "the printed fix did not fix the planted file: \(fix)")
    }

    func testAQuoteInAStrayFileNameCannotEndTheQuotingOfThePrintedRemoval() throws {
        let records = try records()
        let planted = try plant(".x'; touch PWNED; '.tmp-1a2b", in: records)
        let fix = try XCTUnwrap(try finding("stray-file", about: planted, in: try vaultcli("doctor", "--json"))["fix"] as? String)
        try shell(fix)
        XCTAssertEqual(scratchEntries, [], "the printed fix ran a second command: \(fix)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: planted), fix)
        XCTAssertTrue(FileManager.default.fileExists(atPath: records.appendingPathComponent("note.gvr").path), "only the stray file is removed")
    }

    func testANewlineInAFileNameNeverMakesASecondCommandLine() throws {
        let records = try records()
        let planted = try plant("y\ntouch PWNED #.gvr", in: records)
        let before = try FileManager.default.contentsOfDirectory(atPath: records.path).sorted()
        let fix = try XCTUnwrap(try finding("mode", about: planted, in: try vaultcli("doctor", "--json"))["fix"] as? String)
        XCTAssertFalse(fix.unicodeScalars.contains { $0.properties.generalCategory == .control }, "a control character in: \(fix)")
        // Run as a whole, and line by line as `while read line; do sh -c "$line"; done` would.
        try shell(fix)
        for line in fix.split(separator: "\n") { try shell(String(line)) }
        XCTAssertEqual(scratchEntries, [], "the printed fix ran a second command: \(fix)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: records.path).sorted(), before)
        XCTAssertEqual(mode(planted), 0o644, "no command is printed for it, so nothing changed")
        XCTAssertTrue(fix.contains("vaultcli doctor --fix"), "the fix says what to run instead: \(fix)")

        let text = try vaultcli("doctor")
        XCTAssertEqual(text.status, 1, text.transcript)
        XCTAssertFalse(text.output.contains("chmod 600 '\(records.path)/y"), "no command naming an escaped name: \(text.output)")
        XCTAssertFalse(text.output.split(separator: "\n").contains { $0.hasPrefix("touch") }, text.output)
    }

    func testTheDoctorFixRepairsWhatTheNewlineNameCouldNotBeGivenACommandFor() throws {
        let planted = try plant("y\ntouch PWNED #.gvr", in: try records())
        assertRun(try vaultcli("doctor", "--fix"), exits: 0, table: [
            ["CHECK", "SUBJECT", "PROBLEM", "RESULT"],
            ["mode", "<dir>/home/Group Containers/group.com.example.notes/GroupVault/records/y\\u{a}touch PWNED #.gvr", "mode 644, expected 600", "fixed"],
        ])
        XCTAssertEqual(mode(planted), 0o600)
        XCTAssertEqual(try vaultcli("doctor").output, "no findings\n")
    }

    func testThePrintedChownChangesALinkSwappedInNotItsTarget() throws {
        try XCTSkipUnless(geteuid() == 0, "giving a file to another user needs root")
        let nobody: uid_t = 65534
        let records = try records()
        let planted = try plant("foreign.gvr", in: records, mode: 0o600)
        XCTAssertEqual(chown(planted, nobody, gid_t(nobody)), 0)
        let fix = try XCTUnwrap(try finding("owner", about: planted, in: try vaultcli("doctor", "--json"))["fix"] as? String)
        // Between doctor and the operator running its fix, the name becomes a link to a file
        // the operator does not mean to touch.
        let target = try plant("target.txt", in: directory.url, mode: 0o600)
        XCTAssertEqual(chown(target, nobody, gid_t(nobody)), 0)
        try FileManager.default.removeItem(atPath: planted)
        try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: target)
        try shell(fix)
        var status = stat()
        XCTAssertEqual(stat(target, &status), 0)
        XCTAssertEqual(status.st_uid, nobody, "the printed fix followed the link: \(fix)")
    }

    func testAFileWhoseNameIsNotUTF8IsAFindingWithoutACommand() throws {
        // Listed with U+FFFD in place of the byte, a name that addresses another file.
        let records = try records()
        let path = Array(records.path.utf8) + Array("/bad".utf8) + [0xFF] + Array(".gvr".utf8) + [0]
        let descriptor = path.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { Glibc.open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) } }
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        XCTAssertEqual(close(descriptor), 0)
        let result = try vaultcli("doctor", "--json")
        XCTAssertEqual(result.status, 1, result.transcript)
        let finding = try XCTUnwrap(try findings(result).first { $0["check"] as? String == "unreadable-name" }, result.output)
        XCTAssertTrue((finding["fix"] as? String)?.hasPrefix("#") == true, "\(finding)")
    }

    func testThePrintedRecordDeletionWorksForANameThatLooksLikeAnOption() throws {
        _ = try records()
        try vault().write(Note(text: "y"), to: "-rf")
        try FileManager.default.removeItem(atPath: try vault().recordsDirectory.appending("-rf.gvr").string)
        let fix = try XCTUnwrap(try finding("missing-record", about: "\(group)/-rf", in: try vaultcli("doctor", "--json"))["fix"] as? String)
        var environment = environment
        environment["PATH"] = vaultcliURL.deletingLastPathComponent().path + ":/usr/bin:/bin"
        XCTAssertEqual(try shell(fix, environment: environment), 0, fix)
        XCTAssertEqual(try vault().recordsMissingFromDisk(), [], fix)
    }

    // MARK: --fix

    func testFixSetsModesAndRemovesNothingWithoutYes() throws {
        let records = try records()
        let planted = try plant("loose.gvr", in: records)
        let link = records.appendingPathComponent("other.gvr").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/etc/passwd")
        let result = try vaultcli("doctor", "--fix", "--json")
        XCTAssertEqual(result.status, 1, "the link is still there: \(result.transcript)")
        XCTAssertEqual(mode(planted), 0o600)
        XCTAssertEqual(try finding("mode", about: planted, in: result)["result"] as? String, "fixed")
        let refusal = try XCTUnwrap(try finding("symlink", about: link, in: result)["result"] as? String)
        XCTAssertTrue(refusal.contains("--yes"), refusal)
        XCTAssertNotNil(try? FileManager.default.destinationOfSymbolicLink(atPath: link), "removed without --yes")
    }

    func testFixWithYesRemovesAPlantedLinkAndAStrayFileAndRecordsALostRecord() throws {
        let records = try records()
        let link = records.appendingPathComponent("other.gvr").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/etc/passwd")
        let stray = try plant(".note.gvr.tmp-1a2b3c", in: records, mode: 0o600)
        try vault().write(Note(text: "y"), to: "lost")
        try FileManager.default.removeItem(atPath: records.appendingPathComponent("lost.gvr").path)
        let result = try vaultcli("doctor", "--fix", "--yes")
        XCTAssertEqual(result.status, 0, result.transcript)
        XCTAssertNil(try? FileManager.default.destinationOfSymbolicLink(atPath: link))
        XCTAssertFalse(FileManager.default.fileExists(atPath: stray))
        XCTAssertTrue(FileManager.default.fileExists(atPath: "/etc/passwd"), "the link is removed, not its target")
        XCTAssertEqual(try vault().recordsMissingFromDisk(), [])
        XCTAssertEqual(try vaultcli("doctor").output, "no findings\n")
    }

    func testFixLeavesAFileWithASecondLinkAlone() throws {
        // A hard link from the records directory to a file elsewhere: chmod of the name would
        // change that other file too.
        let outside = try plant("outside.txt", in: directory.url)
        let linked = try records().appendingPathComponent("linked.gvr").path
        XCTAssertEqual(link(outside, linked), 0)
        let result = try vaultcli("doctor", "--fix", "--json")
        XCTAssertEqual(result.status, 1, result.transcript)
        let refusal = try XCTUnwrap(try finding("mode", about: linked, in: result)["result"] as? String)
        XCTAssertTrue(refusal.contains("2 links"), refusal)
        XCTAssertEqual(mode(outside), 0o644)
    }

    func testFixAtATerminalRemovesOnlyWhatTheOperatorConfirms() throws {
        let records = try records()
        let link = records.appendingPathComponent("other.gvr").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/etc/passwd")
        let question = "remove \(link)? [y/N] "

        let declined = try PseudoTerminalSession.run(vaultcliURL, ["doctor", "--fix"], environment: environment,
                                                     exchanges: [.init(prompt: question, line: "n")])
        XCTAssertEqual(declined.status, 1, declined.transcript)
        XCTAssertTrue(declined.transcript.contains("not fixed: declined"), declined.transcript)
        XCTAssertNotNil(try? FileManager.default.destinationOfSymbolicLink(atPath: link), "removed though declined")

        let confirmed = try PseudoTerminalSession.run(vaultcliURL, ["doctor", "--fix"], environment: environment,
                                                      exchanges: [.init(prompt: question, line: "y")])
        XCTAssertEqual(confirmed.status, 0, confirmed.transcript)
        XCTAssertNil(try? FileManager.default.destinationOfSymbolicLink(atPath: link), confirmed.transcript)
    }

    func testYesWithoutFixIsAUsageError() throws {
        assertFails(try vaultcli("doctor", "--yes"), with: 2, mentioning: ["--fix"])
    }
}
