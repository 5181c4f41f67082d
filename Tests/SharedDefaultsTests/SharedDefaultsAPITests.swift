import Foundation
import Keyring
import SharedDefaults
import XCTest

/// The UserDefaults-shaped API: getters and their conversions, registration, removal,
/// dictionaryRepresentation, the Codable accessor, and where entries are stored.
final class SharedDefaultsAPITests: XCTestCase {
    private var sandbox: DefaultsSandbox!

    override func setUpWithError() throws { sandbox = try DefaultsSandbox() }
    override func tearDown() { sandbox.remove() }

    func testAbsentKeysReadAsUserDefaultsDefaults() throws {
        let defaults = try sandbox.defaults()
        XCTAssertNil(defaults.object(forKey: "missing"))
        XCTAssertNil(defaults.string(forKey: "missing"))
        XCTAssertFalse(defaults.bool(forKey: "missing"))
        XCTAssertEqual(defaults.integer(forKey: "missing"), 0)
        XCTAssertEqual(defaults.double(forKey: "missing"), 0)
        XCTAssertNil(defaults.data(forKey: "missing"))
        XCTAssertNil(defaults.url(forKey: "missing"))
        XCTAssertNil(try defaults.value(forKey: "missing"))
    }

    func testTypedGettersConvertLikeUserDefaults() throws {
        let defaults = try sandbox.defaults()
        try defaults.set("42", forKey: "text")
        try defaults.set(3.9, forKey: "real")
        try defaults.set("YES", forKey: "yes")
        try defaults.set(7, forKey: "int")
        XCTAssertEqual(defaults.integer(forKey: "text"), 42)
        XCTAssertEqual(defaults.integer(forKey: "real"), 3)
        XCTAssertTrue(defaults.bool(forKey: "yes"))
        XCTAssertTrue(defaults.bool(forKey: "int"))
        XCTAssertEqual(defaults.string(forKey: "int"), "7")
        XCTAssertEqual(defaults.double(forKey: "int"), 7)
        XCTAssertNil(defaults.data(forKey: "text"), "a string is not data")
    }

    func testURLFloatAndDateGettersConvertLikeUserDefaults() throws {
        let defaults = try sandbox.defaults()
        let date = Date(timeIntervalSinceReferenceDate: 123.5)
        try defaults.set(URL(string: "https://example.com")!, forKey: "url")
        try defaults.set("/tmp/file", forKey: "path")
        try defaults.set("not a url", forKey: "text")
        try defaults.set(Float(0.5), forKey: "float")
        try defaults.set(date, forKey: "date")
        XCTAssertEqual(defaults.url(forKey: "url"), URL(string: "https://example.com"))
        XCTAssertEqual(defaults.url(forKey: "path"), URL(fileURLWithPath: "/tmp/file"))
        XCTAssertNil(defaults.url(forKey: "text"))
        XCTAssertEqual(defaults.float(forKey: "float"), 0.5)
        XCTAssertEqual(defaults.date(forKey: "date"), date)
        XCTAssertNil(defaults.date(forKey: "float"))
    }

    func testCollectionGettersReturnFoundationTypes() throws {
        let defaults = try sandbox.defaults()
        try defaults.set(["a", "b"], forKey: "strings")
        try defaults.set(["a", 1] as [Any], forKey: "mixed")
        try defaults.set(["x": 1], forKey: "dict")
        XCTAssertEqual(defaults.stringArray(forKey: "strings"), ["a", "b"])
        XCTAssertNil(defaults.stringArray(forKey: "mixed"), "not all strings")
        XCTAssertEqual(defaults.array(forKey: "mixed")?.count, 2)
        XCTAssertEqual(defaults.dictionary(forKey: "dict")?["x"] as? Int, 1)
    }

    func testRegisteredDefaultsFillInUntilAValueIsStoredAndReturnAfterRemoval() throws {
        let defaults = try sandbox.defaults()
        try defaults.register(defaults: ["theme": "light", "refresh": 60])
        XCTAssertEqual(defaults.string(forKey: "theme"), "light")
        try defaults.set("dark", forKey: "theme")
        XCTAssertEqual(defaults.string(forKey: "theme"), "dark")
        try defaults.removeObject(forKey: "theme")
        XCTAssertEqual(defaults.string(forKey: "theme"), "light")
    }

    func testRegisteredDefaultsAreNotStoredForOtherProcesses() throws {
        try sandbox.defaults().register(defaults: ["theme": "light"])
        XCTAssertNil(try sandbox.defaults().string(forKey: "theme"))
    }

    func testRemovalIsSeenByAFreshView() throws {
        let defaults = try sandbox.defaults()
        try defaults.set(1, forKey: "gone")
        try defaults.removeObject(forKey: "gone")
        XCTAssertNil(try sandbox.defaults().object(forKey: "gone"))
        XCTAssertNil(try sandbox.defaults().value(forKey: "gone"))
    }

    func testSettingNilRemovesTheKey() throws {
        let defaults = try sandbox.defaults()
        try defaults.set(1, forKey: "gone")
        try defaults.set(nil as Any?, forKey: "gone")
        XCTAssertNil(try sandbox.defaults().object(forKey: "gone"))
    }

    func testDictionaryRepresentationHoldsStoredAndRegisteredValues() throws {
        let defaults = try sandbox.defaults()
        try defaults.register(defaults: ["registered": true, "theme": "light"])
        try defaults.set("dark", forKey: "theme")
        try defaults.set(5, forKey: "count")
        let representation = defaults.dictionaryRepresentation()
        XCTAssertEqual(Set(representation.keys), ["registered", "theme", "count"])
        XCTAssertEqual(representation["theme"] as? String, "dark")
        XCTAssertEqual(try sandbox.defaults().values(), ["theme": .string("dark"), "count": .integer(5)])
    }

    func testSuitesOfOneGroupAreSeparate() throws {
        let first = try sandbox.defaults("first")
        let second = try sandbox.defaults("second")
        try first.set(1, forKey: "key")
        try second.set(2, forKey: "key")
        XCTAssertEqual(try sandbox.defaults("first").integer(forKey: "key"), 1)
        XCTAssertEqual(try sandbox.defaults("second").integer(forKey: "key"), 2)
        XCTAssertEqual(try sandbox.defaults("first").values().count, 1)
    }

    struct WidgetStyle: Codable, Equatable {
        var theme: String
        var refreshInterval: Int
    }

    func testCodableValuesRoundTrip() throws {
        let style = WidgetStyle(theme: "dark", refreshInterval: 30)
        try sandbox.defaults().setEncoded(style, forKey: "style")
        XCTAssertEqual(try sandbox.defaults().decoded(WidgetStyle.self, forKey: "style"), style)
        XCTAssertNil(try sandbox.defaults().decoded(WidgetStyle.self, forKey: "absent"))
    }

    func testDecodingAValueOfAnotherTypeIsATypeMismatch() throws {
        let defaults = try sandbox.defaults()
        try defaults.set(3, forKey: "number")
        try defaults.set(Data("{}".utf8), forKey: "other")
        assertRefused(.typeMismatch) { () throws(SharedDefaultsError) in try defaults.decoded(WidgetStyle.self, forKey: "number") }
        assertRefused(.typeMismatch) { () throws(SharedDefaultsError) in try defaults.decoded(WidgetStyle.self, forKey: "other") }
    }

    func testRecordNamesDoNotRevealKeysOrSuites() throws {
        let defaults = try sandbox.defaults("settings-suite")
        try defaults.set(true, forKey: "hasPremium")
        let names = try sandbox.recordFiles().map(\.lastPathComponent)
        XCTAssertEqual(names.count, 1)
        for name in names {
            XCTAssertFalse(name.contains("hasPremium") || name.contains("settings"), name)
            XCTAssertTrue(name.hasPrefix("sd-"), name)
        }
    }

    func testEachKeyIsItsOwnSealedRecord() throws {
        let defaults = try sandbox.defaults()
        for index in 0..<5 { try defaults.set(index, forKey: "key\(index)") }
        XCTAssertEqual(try sandbox.recordFiles().count, 5)
    }

    func testValuesAreNotStoredInPlaintext() throws {
        try sandbox.defaults().set("plaintext-marker-2f7c", forKey: "secretish")
        for file in try sandbox.recordFiles() {
            let bytes = try Data(contentsOf: file)
            XCTAssertNil(bytes.range(of: Data("plaintext-marker-2f7c".utf8)), file.lastPathComponent)
            XCTAssertNil(bytes.range(of: Data("secretish".utf8)), file.lastPathComponent)
        }
    }

    func testValueDescriptionsNeverShowContent() {
        XCTAssertEqual(SharedDefaults.Value.string("hunter2").description, "string (7 bytes)")
        XCTAssertFalse(SharedDefaults.Value.dictionary(["k": .string("hunter2")]).description.contains("hunter2"))
    }
}
