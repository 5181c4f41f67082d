import Foundation
import XCTest

/// Runs Resources/apple_seckey.py, the independent implementation on Python's `cryptography`.
///
/// Missing Python or a missing `cryptography` module is a test failure, not a skip: `make test`
/// must not pass without the cross-check. scripts/install-dependencies installs it.
enum PythonCryptography {
    static let installHint = "install it with `scripts/install-dependencies` (Debian: apt-get install python3-cryptography; elsewhere: python3 -m pip install cryptography)"

    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// Sends `requests` to the script in one process and returns its answers, in order.
    static func run(_ requests: [[String: Any]]) throws -> [[String: Any]] {
        guard let script = Bundle.module.url(forResource: "apple_seckey", withExtension: "py", subdirectory: "Resources") else {
            throw Unavailable(description: "Resources/apple_seckey.py is missing from the test bundle")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch {
            throw Unavailable(description: "python3 could not be started (\(error)); \(installHint)")
        }
        // A script that exits before reading (python3 missing) must not kill the test process
        // with SIGPIPE: the write then throws, and the exit status below says why.
        signal(SIGPIPE, SIG_IGN)
        try? input.fileHandleForWriting.write(contentsOf: JSONSerialization.data(withJSONObject: requests))
        try? input.fileHandleForWriting.close()
        let answer = output.fileHandleForReading.readDataToEndOfFile()
        let diagnostics = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        switch process.terminationStatus {
        case 0: break
        case 3: throw Unavailable(description: "Python's cryptography module is missing; \(installHint)")
        case 127: throw Unavailable(description: "python3 is not installed; \(installHint)")
        default: throw Unavailable(description: "apple_seckey.py exited with \(process.terminationStatus): \(diagnostics)")
        }
        guard let answers = try JSONSerialization.jsonObject(with: answer) as? [[String: Any]], answers.count == requests.count else {
            throw Unavailable(description: "apple_seckey.py answered something else than one answer per request")
        }
        return answers
    }

    /// The hex `out` of an answer, failing the test with the script's error otherwise.
    static func output(_ answer: [String: Any], _ context: String, file: StaticString = #filePath, line: UInt = #line) -> Data? {
        guard let hex = answer["out"] as? String else {
            XCTFail("\(context): Python answered \(answer)", file: file, line: line)
            return nil
        }
        return SecKeyFixtures.hex(hex)
    }
}

extension Data {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
