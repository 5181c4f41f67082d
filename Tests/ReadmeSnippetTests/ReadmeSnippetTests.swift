import Foundation
import XCTest

/// The README's Swift snippets are compiled: each is, byte for byte, the source of a target of
/// this package (`Examples/Readme/*/main.swift`, built by `swift build`, and
/// `TokenStoreTests.swift` in this target, built and run by `swift test`).
///
/// Why quoted targets rather than a throw-away consumer package built by the test: building a
/// second package would compile GroupVault and its dependencies again from nothing on every CI
/// run (minutes on a 2-core machine); the targets compile with the package for seconds, against
/// the same public products (`Keyring`, `Vault`, `KeyringTestSupport`) a consumer imports, and
/// this test makes sure the README shows exactly what compiled.
final class ReadmeSnippetTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The files the README quotes, relative to the repository root.
    private static let quotedFiles = [
        "Examples/Readme/KeychainItems/main.swift",
        "Examples/Readme/SealedRecords/main.swift",
        "Examples/Readme/AppleCompatibility/main.swift",
        "Examples/Readme/Messaging/main.swift",
        "Examples/Readme/SharedData/main.swift",
        "Examples/Readme/Sync/main.swift",
        "Tests/ReadmeSnippetTests/TokenStoreTests.swift",
        "Tests/WrapperStyleKeychain/SecurityReexport.swift",
    ]

    /// The ```swift blocks of README.md, except the Package.swift fragment (which is a part of
    /// the reader's own manifest, not a compilable file).
    private func readmeSnippets() throws -> [String] {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        var snippets: [String] = []
        var current: [Substring]?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                snippets.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return snippets.filter { !$0.hasPrefix("// Package.swift") }
    }

    private func quoted(_ path: String) throws -> String {
        let text = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    func testEverySwiftSnippetInTheReadmeIsACompiledFile() throws {
        let files = try Self.quotedFiles.map(quoted)
        let snippets = try readmeSnippets()
        XCTAssertFalse(snippets.isEmpty, "README.md has no Swift snippets: was it moved?")
        for snippet in snippets {
            XCTAssertTrue(files.contains(snippet), "this README snippet is not the exact source of a compiled file (\(Self.quotedFiles)):\n\(snippet)")
        }
    }

    func testEveryQuotedFileAppearsInTheReadme() throws {
        let snippets = try readmeSnippets()
        for path in Self.quotedFiles {
            XCTAssertTrue(snippets.contains(try quoted(path)), "\(path) is no longer quoted in README.md; update the README")
        }
    }
}
