import Foundation
import SharedDefaults
import XCTest

/// Importing an Apple-style preferences plist once: dry run, move, keep, skip, remove.
final class PreferencesImportTests: XCTestCase {
    private var sandbox: DefaultsSandbox!

    override func setUpWithError() throws { sandbox = try DefaultsSandbox() }
    override func tearDown() { sandbox.remove() }

    private let date = Date(timeIntervalSinceReferenceDate: 700_000_000)

    private var preferences: [String: Any] {
        ["theme": "dark", "refresh": 30, "ratio": 0.5, "enabled": true, "token": Data([1, 2, 3]),
         "lastRefresh": date, "accounts": ["a", "b"], "window": ["width": 300, "height": 200]]
    }

    private func writePlist(_ object: Any, format: PropertyListSerialization.PropertyListFormat, name: String = "group.com.example.shared.plist") throws -> URL {
        let url = sandbox.directory.url.appendingPathComponent(name)
        try PropertyListSerialization.data(fromPropertyList: object, format: format, options: 0).write(to: url)
        return url
    }

    private func assertImported(_ defaults: SharedDefaults, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(defaults.string(forKey: "theme"), "dark", file: file, line: line)
        XCTAssertEqual(defaults.integer(forKey: "refresh"), 30, file: file, line: line)
        XCTAssertEqual(defaults.double(forKey: "ratio"), 0.5, file: file, line: line)
        XCTAssertTrue(defaults.bool(forKey: "enabled"), file: file, line: line)
        XCTAssertEqual(defaults.data(forKey: "token"), Data([1, 2, 3]), file: file, line: line)
        XCTAssertEqual(defaults.date(forKey: "lastRefresh"), date, file: file, line: line)
        XCTAssertEqual(defaults.stringArray(forKey: "accounts"), ["a", "b"], file: file, line: line)
        XCTAssertEqual(defaults.dictionary(forKey: "window")?["width"] as? Int, 300, file: file, line: line)
    }

    func testADryRunListsWhatWouldMoveAndChangesNothing() throws {
        let url = try writePlist(preferences, format: .xml)
        let defaults = try sandbox.defaults()
        let plan = try defaults.importPreferences(from: url, dryRun: true)
        XCTAssertTrue(plan.isDryRun)
        XCTAssertEqual(Set(plan.moved.keys), Set(preferences.keys))
        XCTAssertFalse(plan.fileRemoved)
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path))
        XCTAssertTrue(try sandbox.defaults().values().isEmpty)
    }

    func testADryRunWithNoFileSaysThereIsNothingToImport() throws {
        let url = sandbox.directory.url.appendingPathComponent("Library/Preferences/absent.plist")
        let plan = try sandbox.defaults().importPreferences(from: url, dryRun: true)
        XCTAssertFalse(plan.fileFound)
        XCTAssertTrue(plan.isNothingToImport)
        XCTAssertEqual(plan.description, "nothing to import: \(url.path) does not exist")
    }

    func testAnImportWithNoFileImportsNothingAndDoesNotFail() throws {
        let url = sandbox.directory.url.appendingPathComponent("absent.plist")
        let result = try sandbox.defaults().importPreferences(from: url)
        XCTAssertFalse(result.fileFound)
        XCTAssertFalse(result.fileRemoved)
        XCTAssertTrue(try sandbox.defaults().values().isEmpty)
    }

    func testADryRunDescribesWhatWouldMoveByKeyNeverByValue() throws {
        let url = try writePlist(["theme": "dark", "token": "s3cr3t-value"], format: .xml)
        let plan = try sandbox.defaults().importPreferences(from: url, dryRun: true)
        XCTAssertEqual(plan.description, "dry run: would move 2 from \(url.path): theme, token")
    }

    func testAnXMLPreferencesFileIsImportedAndRemoved() throws {
        let url = try writePlist(preferences, format: .xml)
        let result = try sandbox.defaults().importPreferences(from: url)
        XCTAssertTrue(result.fileRemoved)
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
        assertImported(try sandbox.defaults())
    }

    func testABinaryPreferencesFileIsImportedAndRemoved() throws {
        let url = try writePlist(preferences, format: .binary)
        XCTAssertTrue(try sandbox.defaults().importPreferences(from: url).fileRemoved)
        assertImported(try sandbox.defaults())
    }

    func testKeysTheSuiteAlreadyHoldsKeepTheirValue() throws {
        let defaults = try sandbox.defaults()
        try defaults.set("light", forKey: "theme")
        let url = try writePlist(preferences, format: .xml)
        let result = try defaults.importPreferences(from: url)
        XCTAssertEqual(result.kept, ["theme"])
        XCTAssertEqual(try sandbox.defaults().string(forKey: "theme"), "light")
        XCTAssertEqual(try sandbox.defaults().integer(forKey: "refresh"), 30)
    }

    func testAValueTooLargeIsSkippedAndTheFileIsKept() throws {
        let url = try writePlist(["big": Data(count: SharedDefaults.maximumValueSize), "small": 1], format: .binary)
        let result = try sandbox.defaults().importPreferences(from: url)
        XCTAssertEqual(Array(result.skipped.keys), ["big"])
        XCTAssertFalse(result.fileRemoved)
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path), "a value that was not moved must not be lost")
        XCTAssertEqual(try sandbox.defaults().integer(forKey: "small"), 1)
    }

    func testMalformedFilesAreRefusedAndKept() throws {
        let cases: [String: Data] = [
            "garbage": Data("not a plist at all".utf8),
            "truncated-binary": Data("bplist00\u{D1}\u{01}".utf8),
            "root-array": try PropertyListSerialization.data(fromPropertyList: ["a"], format: .xml, options: 0),
            "not-utf8": Data([0x3C, 0x3F, 0x78, 0x6D, 0x6C, 0xFF, 0xFE]),
            "too-deep": Data(("<plist><dict><key>k</key>" + String(repeating: "<array>", count: 40) + String(repeating: "</array>", count: 40) + "</dict></plist>").utf8),
        ]
        let defaults = try sandbox.defaults()
        for (name, data) in cases {
            let url = sandbox.directory.url.appendingPathComponent("\(name).plist")
            try data.write(to: url)
            assertRefused(.malformedPreferences) { () throws(SharedDefaultsError) in try defaults.importPreferences(from: url) }
            XCTAssertTrue(FileManager.default.fileExists(atPath: url.path), name)
        }
        XCTAssertTrue(defaults.values().isEmpty)
    }

    func testABinaryFileNamingAKeyTwiceIsRefusedAndKept() throws {
        // { "theme": "dark", "theme": "light" }: which value a reader keeps is up to the reader.
        var bytes = Array("bplist00".utf8)
        let objects: [[UInt8]] = [[0xD2, 1, 2, 3, 4], [0x55] + Array("theme".utf8), [0x55] + Array("theme".utf8),
                                  [0x54] + Array("dark".utf8), [0x55] + Array("light".utf8)]
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let table = UInt64(bytes.count)
        bytes += offsets + [0, 0, 0, 0, 0, 0, 1, 1]
        for value in [UInt64(objects.count), 0, table] { bytes += withUnsafeBytes(of: value.bigEndian, Array.init) }
        let url = sandbox.directory.url.appendingPathComponent("twice.plist")
        try Data(bytes).write(to: url)
        let defaults = try sandbox.defaults()
        do {
            let plan = try defaults.importPreferences(from: url)
            XCTFail("expected a refusal, got \(plan)")
        } catch {
            XCTAssertEqual(error.code, .malformedPreferences, "\(error)")
            XCTAssertTrue(error.reason.contains("the key \"theme\" appears twice in one dictionary"), error.reason)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path))
        XCTAssertNil(defaults.object(forKey: "theme"))
    }

    func testTheApplePreferencesLocationIsLibraryPreferences() {
        let url = SharedDefaults.applePreferencesURL(suiteName: "group.x.y", home: URL(fileURLWithPath: "/home/ada"))
        XCTAssertEqual(url.path, "/home/ada/Library/Preferences/group.x.y.plist")
    }
}
