import Foundation
import GroupVaultTestKit
import XCTest

/// The README's vaultcli sequence (section "### vaultcli", its first `sh` block) runs as
/// written, every line succeeding, with the built binary in place of `swift run vaultcli`.
final class ReadmeSequenceTests: VaultCLITestCase {
    func testTheReadmesVaultcliSequenceSucceedsAsWritten() throws {
        let block = try ReadmeShellBlock.first(under: "### vaultcli")
        XCTAssertTrue(block.contains("swift run vaultcli keys retire"), block)
        let script = "set -e\n" + block.replacingOccurrences(of: "swift run vaultcli", with: "'\(vaultcliURL.path)'")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = ReadmeShellBlock.repositoryRoot
        // Only what a fresh shell has: the block sets the identity itself. Its home
        // (mktemp -d) is made under this test's directory, which is removed afterwards. The
        // sanitizers' options too, as every child of these tests gets them.
        process.environment = childEnvironment(["TMPDIR": directory.url.path])
        let output = directory.url.appendingPathComponent("readme.out")
        try Data().write(to: output)
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let transcript = try String(contentsOf: output, encoding: .utf8)
        XCTAssertEqual(process.terminationStatus, 0, "a line of the README's vaultcli block failed:\n\(transcript)")
        XCTAssertTrue(transcript.contains("retired key #1"), transcript)
    }
}
