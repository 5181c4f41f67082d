import Foundation
import GroupVaultTestKit
import SealedStorage
import SystemPackage
import XCTest

/// Specification of whole-file replacement: content, modes, and the sweep of leftovers.
final class AtomicFileTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var root: FilePath { FilePath(directory.path) }
    private var target: FilePath { root.appending("state") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "groupvault-atomicfile")
    }

    override func tearDown() {
        FaultInjection.disarmAll()
        directory?.remove()
        directory = nil
    }

    func testReplaceCreatesAMissingFile() throws {
        try AtomicFile.replace(target, with: [1, 2, 3], sharing: .ownerOnly, durability: .full)

        XCTAssertEqual(try FileInspection.contents(of: target), [1, 2, 3])
    }

    func testReplaceSwapsTheWholeContent() throws {
        var rng = SeededGenerator()
        let old = rng.bytes(count: 4096)
        let new = rng.bytes(count: 17)
        try AtomicFile.replace(target, with: old, sharing: .ownerOnly, durability: .full)

        try AtomicFile.replace(target, with: new, sharing: .ownerOnly, durability: .full)

        XCTAssertEqual(try FileInspection.contents(of: target), new, rng.describe)
    }

    func testReplaceLeavesNoTemporaryFile() throws {
        try AtomicFile.replace(target, with: [1], sharing: .ownerOnly, durability: .full)
        try AtomicFile.replace(target, with: [2], sharing: .ownerOnly, durability: .atomic)

        XCTAssertEqual(FileInspection.names(in: root), ["state"])
    }

    func testOwnerOnlyFilesAre0600WhateverTheUmask() throws {
        for mask: UInt16 in [0o000, 0o022, 0o077, 0o777] {
            try FileInspection.withUmask(mask) {
                try AtomicFile.replace(target, with: [1], sharing: .ownerOnly, durability: .full)
            }
            XCTAssertEqual(try FileInspection.mode(of: target), 0o600, "umask \(String(mask, radix: 8))")
        }
    }

    func testUnixGroupFilesAre0660WhateverTheUmask() throws {
        for mask: UInt16 in [0o000, 0o022, 0o077, 0o777] {
            try FileInspection.withUmask(mask) {
                try AtomicFile.replace(target, with: [1], sharing: .unixGroup, durability: .full)
            }
            XCTAssertEqual(try FileInspection.mode(of: target), 0o660, "umask \(String(mask, radix: 8))")
        }
    }

    func testReplaceSetsTheModeOfAnExistingFileThatWasLooser() throws {
        try FileInspection.write([0], to: target)
        chmod(target.string, 0o644)

        try AtomicFile.replace(target, with: [1], sharing: .ownerOnly, durability: .full)

        XCTAssertEqual(try FileInspection.mode(of: target), 0o600)
    }

    func testRemoveStaleTemporariesRemovesOnlyThisTargetsLeftovers() throws {
        let prefix = AtomicFile.temporaryPrefix(for: target)
        let leftovers = [prefix + "0a1b2c3d4e5f6a7b", prefix + "ffffffffffffffff"]
        let others = [
            "state",                                                    // the target itself
            AtomicFile.temporaryPrefix(for: root.appending("other")) + "0a1b2c3d4e5f6a7b",  // another target's
            AtomicFile.temporaryPrefix(for: root.appending("state2")) + "0a1b2c3d4e5f6a7b", // a longer name's
            "state.tmp-0a1b2c3d4e5f6a7b",                               // not hidden: not ours
        ]
        for name in leftovers + others {
            try FileInspection.write([9], to: root.appending(name))
        }

        let removed = AtomicFile.removeStaleTemporaries(for: target)

        XCTAssertEqual(removed, 2)
        XCTAssertEqual(FileInspection.names(in: root), others.sorted())
    }

    /// A target named like another target's temporary ("state.tmp-x") has temporaries that
    /// start with this target's prefix; they belong to its writer, who holds another lock.
    func testRemoveStaleTemporariesLeavesTheTemporariesOfATargetNamedLikeATemporary() throws {
        let lookalike = root.appending("state.tmp-x")
        let lookalikeTemporary = AtomicFile.temporaryPrefix(for: lookalike) + "0a1b2c3d4e5f6a7b"
        let ours = AtomicFile.temporaryPrefix(for: target) + "0a1b2c3d4e5f6a7b"
        XCTAssertTrue(lookalikeTemporary.hasPrefix(AtomicFile.temporaryPrefix(for: target)), "the premise of this test")
        for name in [lookalikeTemporary, ours] {
            try FileInspection.write([9], to: root.appending(name))
        }

        XCTAssertEqual(AtomicFile.removeStaleTemporaries(for: target), 1)
        XCTAssertEqual(FileInspection.names(in: root), [lookalikeTemporary])
    }

    func testRemoveStaleTemporariesWithNothingToRemoveRemovesNothing() throws {
        try AtomicFile.replace(target, with: [1], sharing: .ownerOnly, durability: .full)

        XCTAssertEqual(AtomicFile.removeStaleTemporaries(for: target), 0)
        XCTAssertEqual(FileInspection.names(in: root), ["state"])
    }
}
