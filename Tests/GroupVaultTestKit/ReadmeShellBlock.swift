import Foundation

/// A shell block of README.md, for the tests that run one as a reader would.
public enum ReadmeShellBlock {
    /// The repository's root: this file is Tests/GroupVaultTestKit/ReadmeShellBlock.swift.
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Why a block was not found.
    public struct Missing: Error, CustomStringConvertible {
        /// What is missing from README.md.
        public let description: String
    }

    /// The first ```sh block after the line `heading` (e.g. `### vaultcli`), without its fences.
    public static func first(under heading: String) throws -> String {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let section = readme.range(of: "\n\(heading)\n") else { throw Missing(description: "README.md has no \(heading) section") }
        let rest = readme[section.upperBound...]
        guard let open = rest.range(of: "```sh\n"), let close = rest[open.upperBound...].range(of: "```") else {
            throw Missing(description: "README.md's \(heading) section has no sh block")
        }
        return String(rest[open.upperBound..<close.lowerBound])
    }
}
