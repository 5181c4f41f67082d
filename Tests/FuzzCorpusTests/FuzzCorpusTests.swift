import Foundation
import FuzzTargets
import XCTest

/// Replays every committed libFuzzer corpus file (`Fuzz/Corpus/<target>/`) through its target's
/// callback, so an input that once crashed a parser or broke one of its rules stays fixed, and
/// checks that the `valid-` seeds are still accepted (so each harness still reaches the
/// parser's success path).
final class FuzzCorpusTests: XCTestCase {
    /// `Fuzz/Corpus` of this checkout, found from this file's path.
    private static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus", isDirectory: true)

    override class func tearDown() {
        FuzzWorkspace.remove()
        super.tearDown()
    }

    private func files(of target: FuzzTarget) throws -> [URL] {
        let directory = Self.corpus.appendingPathComponent(target.name, isDirectory: true)
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    func testEveryCorpusFileGivesAnAllowedAnswer() throws {
        for target in FuzzTarget.all {
            let files = try files(of: target)
            XCTAssertFalse(files.isEmpty, "Fuzz/Corpus/\(target.name) holds no inputs")
            for file in files {
                let input = try [UInt8](Data(contentsOf: file))
                do {
                    let outcome = try target.run(input)
                    if file.lastPathComponent.hasPrefix("valid-") {
                        XCTAssertEqual(outcome, .accepted, "\(target.name)/\(file.lastPathComponent) must be accepted")
                    }
                } catch {
                    XCTFail("\(target.name)/\(file.lastPathComponent): \(error)")
                }
            }
        }
    }

    func testEveryCorpusDirectoryBelongsToATarget() throws {
        let names = Set(FuzzTarget.all.map(\.name))
        let directories = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path)
        for directory in directories where !directory.hasPrefix(".") {
            XCTAssertTrue(names.contains(directory), "Fuzz/Corpus/\(directory) names no fuzz target (targets: \(names.sorted()))")
        }
    }

    /// The seeds each target documents are in its corpus, byte for byte, so regenerating them
    /// (`GroupVaultFuzz --write-seeds`) is only needed when a seed's definition changes.
    func testEverySeedIsCommitted() throws {
        for target in FuzzTarget.all {
            let committed = Set(try files(of: target).map(\.lastPathComponent))
            for name in try target.seeds().keys {
                XCTAssertTrue(committed.contains(name), "seed \(target.name)/\(name) is not in Fuzz/Corpus; run scripts/fuzz --seeds")
            }
        }
    }
}
