import Foundation
import Keyring
import SealedStorage

/// What importing an Apple-style preferences file (`Library/Preferences/<suite>.plist`, as
/// `UserDefaults(suiteName:)` leaves it, XML or binary) into a suite does, key by key.
///
/// ```swift
/// let plan = try defaults.importPreferences(from: plistURL, dryRun: true)
/// print(plan.moved.keys.sorted(), plan.kept, plan.skipped)   // nothing has changed yet
/// let done = try defaults.importPreferences(from: plistURL)  // imports, then removes the file
/// ```
///
/// The rules, so that importing is safe to run again and never loses a value:
/// - a key that already has a value in the suite keeps it (``kept``): the suite is newer than
///   the file it replaced;
/// - a key or value the suite cannot hold (``SharedDefaults/maximumKeyLength``,
///   ``SharedDefaults/maximumValueSize``, an integer beyond `Int`) is left out with the reason
///   (``skipped``);
/// - the plaintext file is removed only when every key was moved or kept, and only after every
///   move was stored; otherwise it stays, and ``fileRemoved`` is false.
///
/// The file is parsed with the bounded parser of the entitlements code (`BoundedPropertyList`):
/// at most 32 levels and 4,096 values, at most ``maximumFileSize`` bytes, XML in UTF-8.
public struct PreferencesImport: Sendable, Equatable {
    /// The largest preferences file read: twice the largest suite (XML is verbose).
    public static let maximumFileSize = 2 * SharedDefaults.maximumSuiteSize

    /// The file imported (or that would be).
    public var file: URL
    /// Keys stored in the suite (or that would be), with their values.
    public var moved: [String: SharedDefaults.Value]
    /// Keys left as they were because the suite already has a value for them.
    public var kept: [String]
    /// Keys left out, with why.
    public var skipped: [String: String]
    /// Whether this was a dry run: nothing was stored or removed.
    public var isDryRun: Bool
    /// Whether the plaintext file was removed.
    public var fileRemoved: Bool
    /// Whether there was a file to import. `false` when neither the file nor its directory
    /// exists (an app that never ran on Apple's `UserDefaults`, or a second run after the file
    /// was imported and removed): then nothing is imported, nothing fails, and every other
    /// field is empty.
    public var fileFound: Bool = true

    /// Whether this import moves nothing: no file, or a file whose keys were all kept or skipped.
    public var isNothingToImport: Bool { moved.isEmpty }

    /// Parses `data` as a preferences file and decides each key, given the keys the suite
    /// already holds. Pure: reads and writes nothing, for dry runs and for fuzzing.
    /// - Throws: ``SharedDefaultsError/Code/malformedPreferences`` when the bytes are not a
    ///   property list within the bounds, or its root is not a dictionary.
    package static func plan(parsing data: Data, file: URL, existingKeys: Set<String>) throws(SharedDefaultsError) -> PreferencesImport {
        guard data.count <= maximumFileSize else {
            throw SharedDefaultsError(.malformedPreferences, "\(printable(file.path)) is \(data.count) bytes, over the \(maximumFileSize)-byte limit for a preferences file")
        }
        let root: BoundedPropertyList.Node
        do {
            root = try BoundedPropertyList.parse(data)
        } catch {
            throw SharedDefaultsError(.malformedPreferences, "\(printable(file.path)) is not a property list this importer reads (XML in UTF-8 or binary, at most \(BoundedPropertyList.maximumDepth) levels and \(BoundedPropertyList.maximumValues) values): \(UntrustedText.printable(String(describing: error), limit: 240))")
        }
        guard case .dictionary(let entries) = root else {
            throw SharedDefaultsError(.malformedPreferences, "\(printable(file.path)) is a property list whose root is not a dictionary, so it is not a preferences file")
        }
        var plan = PreferencesImport(file: file, moved: [:], kept: [], skipped: [:], isDryRun: true, fileRemoved: false)
        for (key, node) in entries {
            if existingKeys.contains(key) {
                plan.kept.append(key)
                continue
            }
            do throws(SharedDefaultsError) {
                try SharedDefaults.checkKey(key)
                guard let value = value(node) else {
                    throw SharedDefaultsError(.unsupportedValue, "holds an integer beyond the range of Int")
                }
                try SharedDefaults.check(value, forKey: key)
                let size = SuiteCache.encodedSize(key: key, value: value) - key.utf8.count
                guard size <= SharedDefaults.maximumValueSize else {
                    throw SharedDefaultsError(.valueTooLarge, "encodes to \(size) bytes, over the \(SharedDefaults.maximumValueSize)-byte limit")
                }
                plan.moved[key] = value
            } catch {
                plan.skipped[key] = error.reason
            }
        }
        plan.kept.sort()
        return plan
    }

    private static func value(_ node: BoundedPropertyList.Node) -> SharedDefaults.Value? {
        switch node {
        case .string(let value): return .string(value)
        case .boolean(let value): return .bool(value)
        case .integer(let value): return Int(exactly: value).map(SharedDefaults.Value.integer)
        case .real(let value): return .real(value)
        case .data(let value): return .data(value)
        case .date(let value): return .date(value)
        case .array(let nodes):
            var values: [SharedDefaults.Value] = []
            for node in nodes {
                guard let value = value(node) else { return nil }
                values.append(value)
            }
            return .array(values)
        case .dictionary(let nodes):
            var values: [String: SharedDefaults.Value] = [:]
            for (key, node) in nodes {
                guard let value = value(node) else { return nil }
                values[key] = value
            }
            return .dictionary(values)
        }
    }
}

extension PreferencesImport: CustomStringConvertible {
    /// One line for people: "nothing to import: <file> does not exist", or what moved, was
    /// kept and was skipped, naming the keys (never their values).
    public var description: String {
        let path = UntrustedText.printable(file.path, limit: 200)
        guard fileFound else { return "nothing to import: \(path) does not exist" }
        func names(_ keys: [String]) -> String {
            keys.sorted().map { UntrustedText.printable($0, limit: 80) }.joined(separator: ", ")
        }
        var parts: [String] = []
        let verb = isDryRun ? "would move" : "moved"
        parts.append(moved.isEmpty ? "nothing to import from \(path)" : "\(verb) \(moved.count) from \(path): \(names(Array(moved.keys)))")
        if !kept.isEmpty { parts.append("kept \(kept.count) already set: \(names(kept))") }
        if !skipped.isEmpty { parts.append("skipped \(skipped.count): \(names(Array(skipped.keys)))") }
        if fileRemoved { parts.append("file removed") }
        return (isDryRun ? "dry run: " : "") + parts.joined(separator: "; ")
    }
}

extension SharedDefaults {
    /// Where `UserDefaults(suiteName:)` on Apple platforms keeps a suite's plaintext file:
    /// `<home>/Library/Preferences/<suiteName>.plist`.
    public static func applePreferencesURL(suiteName: String, home: URL = URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)) -> URL {
        home.appendingPathComponent("Library/Preferences").appendingPathComponent("\(suiteName).plist")
    }

    /// Imports the preferences file at `url` into this suite (see ``PreferencesImport`` for the
    /// rules), then removes the file; with `dryRun`, only says what would happen. With no file
    /// at `url`, imports nothing and says so (``PreferencesImport/fileFound`` is `false`): safe
    /// to call on every start.
    ///
    /// ```swift
    /// let url = SharedDefaults.applePreferencesURL(suiteName: "group.com.example.notes")
    /// for key in try defaults.importPreferences(from: url, dryRun: true).moved.keys.sorted() { print(key) }
    /// ```
    /// - Throws: ``SharedDefaultsError/Code/malformedPreferences``; what
    ///   ``set(_:forKey:)-(SharedDefaults.Value,_)`` throws for a value that cannot be stored (then the keys
    ///   stored before it stay, the file stays, and running again moves the rest);
    ///   ``SharedDefaultsError/Code/storage`` when the file cannot be read or removed, or is
    ///   not one to import: a symbolic link (not followed), not a regular file, owned by
    ///   another user, writable by others, or with more than one link (its values would be
    ///   someone else's, sealed as this user's settings).
    @discardableResult
    public func importPreferences(from url: URL, dryRun: Bool = false) throws(SharedDefaultsError) -> PreferencesImport {
        // Read once through the file layer, and removed only if still the file read
        // (PreferencesFile says why and how).
        try PreferencesFile.withContents(
            of: url.path, maximumSize: PreferencesImport.maximumFileSize,
            whenAbsent: { PreferencesImport(file: url, moved: [:], kept: [], skipped: [:], isDryRun: dryRun, fileRemoved: false, fileFound: false) }
        ) {
            (bytes: [UInt8], remove: () throws(SharedDefaultsError) -> Void) throws(SharedDefaultsError) -> PreferencesImport in
            let existing = Set(try cache.withFreshState { (state: inout SuiteCache.State) -> [String] in Array(state.entries.keys) })
            var plan = try PreferencesImport.plan(parsing: Data(bytes), file: url, existingKeys: existing)
            guard !dryRun else { return plan }
            for key in plan.moved.keys.sorted() {
                try set(plan.moved[key]!, forKey: key)
            }
            plan.isDryRun = false
            if plan.skipped.isEmpty {
                do throws(SharedDefaultsError) {
                    try remove()
                } catch {
                    throw SharedDefaultsError(error.code, "every key of \(printable(url.path)) was imported, but the plaintext file was not removed: \(error.reason); remove it by hand")
                }
                plan.fileRemoved = true
            }
            return plan
        }
    }
}
