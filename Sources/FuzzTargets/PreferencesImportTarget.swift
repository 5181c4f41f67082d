import Foundation
import SharedDefaults

extension FuzzTarget {
    /// The SharedDefaults preferences importer (`PreferencesImport.plan`) on arbitrary bytes:
    /// either `malformedPreferences`, or a plan that accounts for every key once, never moves a
    /// key the suite already holds, and moves only values the suite accepts, which survive
    /// their sealed encoding unchanged.
    static let preferencesImport = FuzzTarget(
        name: "preferences-import",
        summary: "preferences plist import: malformedPreferences, or a plan of storable values that round-trip",
        run: { input throws(FuzzFinding) in
            let existing: Set<String> = ["kept"]
            let plan: PreferencesImport
            do throws(SharedDefaultsError) {
                plan = try PreferencesImport.plan(parsing: Data(input), file: URL(fileURLWithPath: "/fuzz.plist"), existingKeys: existing)
            } catch {
                try expect(error.code == .malformedPreferences, "refused with \(error.code), not malformedPreferences: \(error)")
                return .refused
            }
            try expect(plan.isDryRun && !plan.fileRemoved, "a plan changed something")
            let moved = Set(plan.moved.keys), kept = Set(plan.kept), skipped = Set(plan.skipped.keys)
            try expect(moved.isDisjoint(with: kept) && moved.isDisjoint(with: skipped) && kept.isDisjoint(with: skipped), "a key is in two lists")
            try expect(kept.isSubset(of: existing), "kept keys the suite does not hold: \(kept.subtracting(existing))")
            // Sorted keys: two encodings of equal dictionaries must be equal bytes.
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            for (key, value) in plan.moved {
                let length = key.utf8.count
                try expect(length > 0 && length <= SharedDefaults.maximumKeyLength, "moved a key of \(length) bytes")
                let encoded: Data
                do {
                    encoded = try encoder.encode(value)
                } catch {
                    throw FuzzFinding("a moved value does not encode: \(error)")
                }
                try expect(encoded.count <= SharedDefaults.maximumValueSize, "moved a value of \(encoded.count) encoded bytes")
                // Compared as encodings: NaN is not equal to itself as a Value.
                let again = try? encoder.encode(JSONDecoder().decode(SharedDefaults.Value.self, from: encoded))
                try expect(again == encoded, "a moved value does not survive its sealed encoding")
            }
            return .accepted
        },
        seeds: {
            func xml(_ body: String) -> [UInt8] {
                Array("""
                    <?xml version="1.0" encoding="UTF-8"?>
                    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                    <plist version="1.0">
                    \(body)
                    </plist>

                    """.utf8)
            }
            let preferences: [String: Any] = [
                "theme": "dark", "refreshInterval": 30, "ratio": 0.25, "enabled": true, "kept": "old",
                "token": Data([0, 1, 2]), "lastRefresh": Date(timeIntervalSinceReferenceDate: 700_000_000),
                "accounts": ["a", "b"], "window": ["width": 300, "height": 200],
            ]
            let binary = try PropertyListSerialization.data(fromPropertyList: preferences, format: .binary, options: 0)
            return [
                "valid-preferences.xml": Array(try PropertyListSerialization.data(fromPropertyList: preferences, format: .xml, options: 0)),
                "valid-preferences.bplist": Array(binary),
                "valid-empty.xml": xml("<dict/>"),
                "root-array.xml": xml("<array><string>a</string></array>"),
                "truncated.bplist": Array(binary.prefix(binary.count / 2)),
                "deep.xml": xml("<dict><key>k</key>" + String(repeating: "<array>", count: 40) + String(repeating: "</array>", count: 40) + "</dict>"),
                "not-utf8.xml": [0x3C, 0x3F, 0x78, 0x6D, 0x6C, 0x20, 0xFF, 0xFE, 0x3E],
                "empty-key.xml": xml("<dict><key></key><string>x</string></dict>"),
                "real-nan.xml": xml("<dict><key>r</key><real>nan</real></dict>"),
            ]
        })
}
