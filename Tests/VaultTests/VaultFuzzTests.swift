import Foundation
import GroupVaultTestKit
import SealedStorage
import Vault
import XCTest

/// Seeded fuzzing of the write/read path: random values round-trip, and damaged blobs of every
/// small shape give a typed refusal, never a crash or a value (SECURITY.md, "Hostile input and hostile neighbours").
/// Replay a failure with the GROUPVAULT_SEED printed in its message.
final class VaultFuzzTests: VaultTestCase {
    /// The refusals a damaged blob may legitimately produce, depending on which byte was hit.
    static let blobRefusals: Set<VaultError.Code> = [.malformed, .unsupportedFormat, .unknownKey, .retiredKey, .authenticationFailed]

    /// A small record, so that every bit of its blob can be flipped.
    struct Tiny: VaultRecord, Equatable {
        static let schemaVersion: UInt32 = 1
        var v: Int
    }

    /// A value with most JSON shapes, filled at random.
    struct Sample: VaultRecord, Equatable {
        struct Inner: Codable, Equatable, Sendable {
            var label: String
            var flags: [Bool]
        }

        static let schemaVersion: UInt32 = 7
        var text: String
        var integer: Int64
        var unsigned: UInt64
        var small: Int8
        var real: Double
        var maybe: String?
        var list: [Int32]
        var map: [String: Int]
        var inner: Inner
        var when: Date
    }

    // MARK: Round trip

    func testRandomValuesRoundTrip() throws {
        var rng = SeededGenerator()
        let vault = try sandbox.vault()

        for index in 0..<100 {
            let value = Self.randomSample(using: &rng)
            try vault.write(value, to: "sample-\(index % 7)")
            XCTAssertEqual(try vault.read(Sample.self, from: "sample-\(index % 7)"), value, "value \(index), \(rng.describe)")
        }
    }

    // MARK: Damaged blobs

    func testEverySingleBitFlipIsATypedRefusal() throws {
        let rng = SeededGenerator()
        let vault = try sandbox.vault()
        try vault.write(Tiny(v: 1), to: "tiny", expiresAt: TestClock.start.addingTimeInterval(60))
        let blob = try sandbox.blob("tiny", in: vault)

        for bit in 0..<(blob.count * 8) {
            var flipped = blob
            flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            try sandbox.place(flipped, as: "tiny", in: vault)
            assertBlobRefused(vault, "bit \(bit) of \(blob.count * 8), \(rng.describe)")
        }
    }

    func testEveryTruncationIsMalformed() throws {
        let vault = try sandbox.vault()
        try vault.write(Tiny(v: 1), to: "tiny")
        let blob = try sandbox.blob("tiny", in: vault)

        for length in 0..<blob.count {
            try sandbox.place(Array(blob[0..<length]), as: "tiny", in: vault)
            assertRefused(.malformed, "length \(length) of \(blob.count)") { () throws(VaultError) in try vault.read(Tiny.self, from: "tiny") }
        }
    }

    func testExtensionsAreMalformed() throws {
        var rng = SeededGenerator()
        let vault = try sandbox.vault()
        try vault.write(Tiny(v: 1), to: "tiny")
        let blob = try sandbox.blob("tiny", in: vault)

        for extra in [1, 2, 15, 16, 17, 64, 1000] {
            try sandbox.place(blob + rng.bytes(count: extra), as: "tiny", in: vault)
            assertRefused(.malformed, "\(extra) extra bytes, \(rng.describe)") { () throws(VaultError) in try vault.read(Tiny.self, from: "tiny") }
        }
    }

    func testRandomBytesAreATypedRefusal() throws {
        var rng = SeededGenerator()
        let vault = try sandbox.vault()
        try vault.write(Tiny(v: 1), to: "other")  // so the keyset exists

        for round in 0..<200 {
            try sandbox.place(rng.bytes(count: Int.random(in: 0...300, using: &rng)), as: "tiny", in: vault)
            assertBlobRefused(vault, "round \(round), \(rng.describe)")
        }
    }

    func testRandomBytesAfterAValidHeaderPrefixAreATypedRefusal() throws {
        var rng = SeededGenerator()
        let vault = try sandbox.vault()
        try vault.write(Tiny(v: 1), to: "tiny")
        let blob = try sandbox.blob("tiny", in: vault)

        for round in 0..<200 {
            let keep = Int.random(in: 5...blob.count, using: &rng)
            let damaged = Array(blob[0..<keep]) + rng.bytes(count: blob.count - keep)
            // Random bytes can repeat the ones they replace (keeping every byte always does, and
            // a one-byte suffix does once in 256): that is the original blob, which is valid.
            if damaged == blob { continue }
            try sandbox.place(damaged, as: "tiny", in: vault)
            assertBlobRefused(vault, "kept \(keep) bytes, round \(round), \(rng.describe)")
        }
    }

    func testRandomMultiByteDamageNeverCrashesTheHeaderParser() throws {
        var rng = SeededGenerator()
        let vault = try sandbox.vault()
        try vault.write(Tiny(v: 1), to: "tiny")
        let blob = try sandbox.blob("tiny", in: vault)

        for round in 0..<20_000 {
            var damaged = blob
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                damaged[Int.random(in: 0..<BlobHeader.byteCount, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            do {
                _ = try BlobHeader.parse(damaged, subject: "fuzz")
            } catch {
                XCTAssertTrue([.malformed, .unsupportedFormat].contains(error.code), "\(error), round \(round), \(rng.describe)")
            }
        }
    }

    // MARK: Support

    private func assertBlobRefused(_ vault: Vault, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let value = try vault.read(Tiny.self, from: "tiny")
            XCTFail("damaged blob read as \(value); \(message)", file: file, line: line)
        } catch {
            XCTAssertTrue(Self.blobRefusals.contains(error.code), "\(error); \(message)", file: file, line: line)
        }
    }

    private static func randomSample(using rng: inout SeededGenerator) -> Sample {
        Sample(
            text: randomString(using: &rng),
            integer: Int64.random(in: .min ... .max, using: &rng),
            unsigned: UInt64.random(in: .min ... .max, using: &rng),
            small: Int8.random(in: .min ... .max, using: &rng),
            real: randomFiniteDouble(using: &rng),
            maybe: Bool.random(using: &rng) ? randomString(using: &rng) : nil,
            list: (0..<Int.random(in: 0...8, using: &rng)).map { _ in Int32.random(in: .min ... .max, using: &rng) },
            map: Dictionary(
                (0..<Int.random(in: 0...5, using: &rng)).map { _ in (randomString(using: &rng), Int.random(in: -1000...1000, using: &rng)) },
                uniquingKeysWith: { first, _ in first }),
            inner: Sample.Inner(
                label: randomString(using: &rng),
                flags: (0..<Int.random(in: 0...6, using: &rng)).map { _ in Bool.random(using: &rng) }),
            when: Date(timeIntervalSinceReferenceDate: Double(Int64.random(in: -4_000_000_000...4_000_000_000, using: &rng)) / 1000))
    }

    /// Up to 24 scalars from ASCII (quotes, backslashes and controls included), Latin, CJK and emoji.
    private static func randomString(using rng: inout SeededGenerator) -> String {
        let ranges: [ClosedRange<UInt32>] = [0x00...0x7F, 0xA0...0x17F, 0x4E00...0x4FFF, 0x1F300...0x1F64F]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...24, using: &rng) {
            let range = ranges[Int.random(in: 0..<ranges.count, using: &rng)]
            scalars.append(Unicode.Scalar(UInt32.random(in: range, using: &rng))!)
        }
        return String(scalars)
    }

    private static func randomFiniteDouble(using rng: inout SeededGenerator) -> Double {
        while true {
            let value = Double(bitPattern: rng.next())
            if value.isFinite { return value }
        }
    }
}
