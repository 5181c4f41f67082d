import Foundation
import SharedDefaults
import XCTest

/// What a suite refuses, with which code, and that a refusal stores nothing.
final class SharedDefaultsBadInputTests: XCTestCase {
    private var sandbox: DefaultsSandbox!

    override func setUpWithError() throws { sandbox = try DefaultsSandbox() }
    override func tearDown() { sandbox.remove() }

    private struct NotAPropertyList {}

    func testUnsupportedTypesAreRefusedAndNothingIsStored() throws {
        let defaults = try sandbox.defaults()
        assertRefused(.unsupportedValue) { () throws(SharedDefaultsError) in try defaults.set(NotAPropertyList(), forKey: "bad") }
        assertRefused(.unsupportedValue) { () throws(SharedDefaultsError) in try defaults.set([NotAPropertyList()], forKey: "bad") }
        assertRefused(.unsupportedValue) { () throws(SharedDefaultsError) in try defaults.set([1: "integer keys"], forKey: "bad") }
        assertRefused(.unsupportedValue) { () throws(SharedDefaultsError) in try defaults.set(UInt64.max, forKey: "bad") }
        XCTAssertNil(try sandbox.defaults().object(forKey: "bad"))
        XCTAssertEqual(try sandbox.recordFiles().count, 0)
    }

    func testRegisteringAnUnsupportedValueRegistersNothing() throws {
        let defaults = try sandbox.defaults()
        assertRefused(.unsupportedValue) { () throws(SharedDefaultsError) in
            try defaults.register(defaults: ["good": 1, "bad": NotAPropertyList()])
        }
        XCTAssertNil(defaults.object(forKey: "good"))
    }

    func testRelativeURLsAndNonFiniteDatesAreRefused() throws {
        let defaults = try sandbox.defaults()
        assertRefused(.unsupportedValue) { () throws(SharedDefaultsError) in try defaults.set(URL(string: "relative/path")!, forKey: "url") }
        assertRefused(.unsupportedValue) { () throws(SharedDefaultsError) in try defaults.set(Date(timeIntervalSinceReferenceDate: .infinity), forKey: "date") }
    }

    func testNestingBeyondTheLimitIsRefused() throws {
        var value = SharedDefaults.Value.integer(1)
        for _ in 0...SharedDefaults.Value.maximumDepth { value = .array([value]) }
        let defaults = try sandbox.defaults()
        assertRefused(.unsupportedValue) { () throws(SharedDefaultsError) in try defaults.set(value, forKey: "deep") }
    }

    func testNestingExactlyAtTheLimitIsStoredAndReadBack() throws {
        var value = SharedDefaults.Value.integer(1)
        for _ in 0..<SharedDefaults.Value.maximumDepth { value = .array([value]) }
        try sandbox.defaults().set(value, forKey: "deep")
        // A new instance reads the entry from its sealed record, not from the writer's memory.
        XCTAssertEqual(try sandbox.defaults().value(forKey: "deep"), value)
    }

    func testEmptyAndOverlongKeysAreRefused() throws {
        let defaults = try sandbox.defaults()
        assertRefused(.invalidKey) { () throws(SharedDefaultsError) in try defaults.set(1, forKey: "") }
        assertRefused(.invalidKey) { () throws(SharedDefaultsError) in try defaults.set(1, forKey: String(repeating: "k", count: SharedDefaults.maximumKeyLength + 1)) }
        assertRefused(.invalidKey) { () throws(SharedDefaultsError) in try defaults.removeObject(forKey: "") }
    }

    func testOversizedValuesAreRefusedAndTheOldValueStays() throws {
        let defaults = try sandbox.defaults()
        try defaults.set("small", forKey: "blob")
        assertRefused(.valueTooLarge) { () throws(SharedDefaultsError) in
            try defaults.set(String(repeating: "x", count: SharedDefaults.maximumValueSize), forKey: "blob")
        }
        XCTAssertEqual(try sandbox.defaults().string(forKey: "blob"), "small")
    }

    func testAValueJustUnderTheLimitIsStored() throws {
        let defaults = try sandbox.defaults()
        // {"string":"…"} adds 13 bytes of encoding.
        let text = String(repeating: "x", count: SharedDefaults.maximumValueSize - 13)
        try defaults.set(text, forKey: "blob")
        XCTAssertEqual(try sandbox.defaults().string(forKey: "blob")?.count, text.count)
    }

    func testASuiteCannotGrowPastItsLimit() throws {
        let defaults = try sandbox.defaults()
        let chunk = Data(count: 180 * 1024)  // 240 KiB in base64
        var stored = 0
        var refusal: SharedDefaultsError?
        for index in 0..<40 {
            do {
                try defaults.set(chunk, forKey: "chunk\(index)")
                stored += 1
            } catch {
                refusal = error
                break
            }
        }
        XCTAssertEqual(refusal?.code, .suiteFull, "\(String(describing: refusal))")
        XCTAssertEqual(stored, SharedDefaults.maximumSuiteSize / (240 * 1024 + 22))
        // Removing a key makes room again.
        try defaults.removeObject(forKey: "chunk0")
        try defaults.set(chunk, forKey: "again")
    }
}
