import Foundation
import FuzzTargets
import GroupVaultTestKit
import XCTest

/// Replays every committed libFuzzer corpus file (`Fuzz/Corpus/<target>/`) through its target's
/// callback, so an input that once crashed a parser or broke one of its rules stays fixed, and
/// checks that the `valid-` seeds are still accepted (so each harness still reaches the
/// parser's success path).
///
/// A file named `crash-*` reproduces a crash that is not fixed yet. It cannot be replayed in
/// this process (the crash would end the whole test run), so it runs in a GroupVaultFuzz child
/// process, and the test fails once it *stops* crashing: then the `crash-` prefix goes, and the
/// file becomes an ordinary regression input.
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

    private static func isOpenCrash(_ file: URL) -> Bool {
        file.lastPathComponent.hasPrefix("crash-")
    }

    func testEveryCorpusFileGivesAnAllowedAnswer() throws {
        for target in FuzzTarget.all {
            let files = try files(of: target).filter { !Self.isOpenCrash($0) }
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

    func testOpenCrashReproducersStillCrash() throws {
        let open = try FuzzTarget.all.flatMap { target in try files(of: target).filter(Self.isOpenCrash).map { (target, $0) } }
        try XCTSkipIf(open.isEmpty, "no open crash reproducers (crash-*) in Fuzz/Corpus")
        for (target, file) in open {
            // Without Swift's backtracer the child dies at once instead of symbolicating.
            let child = try FixtureProcess.run(
                [target.name, file.path], environment: ["SWIFT_BACKTRACE": "enable=no"], executable: "GroupVaultFuzz")
            let name = "\(target.name)/\(file.lastPathComponent)"
            XCTAssertNotEqual(child.status, 0, "\(name) no longer crashes: rename it without the crash- prefix so it is replayed as a regression input")
            XCTAssertNotEqual(child.status, 2, "GroupVaultFuzz could not replay \(name): \(child.errors)")
        }
    }

    func testEveryCorpusDirectoryBelongsToATarget() throws {
        let names = Set(FuzzTarget.all.map(\.name))
        let directories = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path)
        for directory in directories where !directory.hasPrefix(".") {
            XCTAssertTrue(names.contains(directory), "Fuzz/Corpus/\(directory) names no fuzz target (targets: \(names.sorted()))")
        }
    }

    /// The seeds each target documents are in its corpus (by name: some are sealed with a
    /// random nonce), so regenerating them (`scripts/fuzz seeds`) is needed only when a seed's
    /// definition changes.
    func testEverySeedIsCommitted() throws {
        for target in FuzzTarget.all {
            let committed = Set(try files(of: target).map(\.lastPathComponent))
            for name in try target.seeds().keys {
                XCTAssertTrue(committed.contains(name), "seed \(target.name)/\(name) is not in Fuzz/Corpus; run scripts/fuzz seeds")
            }
        }
    }
}
