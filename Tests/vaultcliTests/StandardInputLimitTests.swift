import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Keyring
import XCTest

/// Secrets and keys are read from standard input (or a named file) only up to their limit:
/// more is refused, naming the limit, without reading the rest (which could be endless).
final class StandardInputLimitTests: VaultCLITestCase {
    /// What feeding a child more than it should read showed.
    private struct Feed {
        var run: Run
        /// Bytes the pipe accepted before the child closed it (or everything offered).
        var written: Int
        /// Whether a write failed with EPIPE: the child closed its end without reading it all.
        var brokenPipe: Bool
    }

    /// 64 MiB, far beyond any limit, produced chunk by chunk (never held in memory whole).
    private let offered = 64 << 20

    /// Runs vaultcli with `arguments`, writing `offered` bytes of `byte` into a pipe on its
    /// standard input until they are all written or the child closes the pipe.
    private func feeding(_ arguments: String..., byte: UInt8 = UInt8(ascii: "a")) throws -> Feed {
        // A closed pipe must show as EPIPE from write(), not kill the test process.
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        let files = ["out", "err"].map { directory.url.appendingPathComponent("fed.\($0)") }
        for file in files { try Data().write(to: file) }
        let input = Pipe()
        let process = Process()
        process.executableURL = vaultcliURL
        process.arguments = arguments
        process.environment = childEnvironment(environment)
        let handles = try [FileHandle(forWritingTo: files[0]), FileHandle(forWritingTo: files[1])]
        defer { handles.forEach { try? $0.close() } }
        process.standardInput = input
        process.standardOutput = handles[0]
        process.standardError = handles[1]
        try process.run()
        // Only the child may hold the reading end: then its exit breaks the pipe.
        try? input.fileHandleForReading.close()

        let chunk = [UInt8](repeating: byte, count: 64 * 1024)
        let writer = input.fileHandleForWriting.fileDescriptor
        var written = 0
        var brokenPipe = false
        while written < offered {
            let count = chunk.withUnsafeBytes { Glibc.write(writer, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                XCTAssertEqual(errno, EPIPE, "write failed otherwise: \(String(cString: strerror(errno)))")
                brokenPipe = true
                break
            }
            written += count
        }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        let run = Run(status: process.terminationStatus,
                      output: try String(contentsOf: files[0], encoding: .utf8),
                      errors: try String(contentsOf: files[1], encoding: .utf8))
        return Feed(run: run, written: written, brokenPipe: brokenPipe)
    }

    private func assertRefusedUnread(_ feed: Feed, limit: Int, file: StaticString = #filePath, line: UInt = #line) {
        assertFails(feed.run, with: 5, mentioning: ["\(limit) bytes"], file: file, line: line)
        XCTAssertTrue(feed.brokenPipe, "the child read all \(feed.written) bytes instead of stopping at the limit", file: file, line: line)
        XCTAssertLessThan(feed.written, offered, file: file, line: line)
    }

    func testItemsAddRefusesASecretLargerThanTheLimitWithoutReadingItAll() throws {
        let feed = try feeding("items", "add", "--service", "big", "--account", "ada")
        assertRefusedUnread(feed, limit: KeychainItem.maximumSecretSize)
        XCTAssertThrowsError(try keyring().item(matching: ItemQuery(service: "big")), "nothing was stored")
    }

    func testItemsUpdateNewSecretRefusesASecretLargerThanTheLimitWithoutReadingItAll() throws {
        try keyring().add(KeychainItem(service: "small", account: "ada", secret: Data("old".utf8)))
        let feed = try feeding("items", "update", "--service", "small", "--new-secret")
        assertRefusedUnread(feed, limit: KeychainItem.maximumSecretSize)
        XCTAssertEqual(try keyring().item(matching: ItemQuery(service: "small")).secret, Data("old".utf8))
    }

    func testASecretFileThatNeverEndsIsRefusedAtTheLimit() throws {
        // /dev/stdin: a path naming the pipe, as `--secret-file <(generator)` would.
        let feed = try feeding("items", "add", "--service", "big", "--account", "ada", "--secret-file", "/dev/stdin")
        assertRefusedUnread(feed, limit: KeychainItem.maximumSecretSize)
    }

    func testKeysImportRefusesAKeyLargerThanTheLimitWithoutReadingItAll() throws {
        let feed = try feeding("keys", "import", "--reveal", "--group", group, "--id", "1", byte: UInt8(ascii: "0"))
        assertRefusedUnread(feed, limit: 4096)
    }

    func testKeysImportRefusesAKeyFileThatNeverEndsAtTheLimit() throws {
        let feed = try feeding("keys", "import", "--reveal", "--group", group, "--id", "1", "--key-file", "/dev/stdin", byte: UInt8(ascii: "0"))
        assertRefusedUnread(feed, limit: 4096)
    }

    func testASecretExactlyAtTheLimitWithItsNewlineIsStored() throws {
        let secret = String(repeating: "s", count: KeychainItem.maximumSecretSize)
        let result = try vaultcli("items", "add", "--service", "full", "--account", "ada", input: secret + "\n")
        XCTAssertEqual(result.status, 0, result.transcript)
        XCTAssertEqual(try keyring().item(matching: ItemQuery(service: "full")).secret.count, KeychainItem.maximumSecretSize)
    }
}
