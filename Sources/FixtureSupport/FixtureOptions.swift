/// A misuse of a fixture command: the fixtures exit 64 with `usage: <message>`.
package struct UsageError: Error {
    /// What was wrong with the arguments.
    package var message: String

    package init(message: String) {
        self.message = message
    }
}

/// The `--key value` options of a fixture command, each given at most once.
///
/// The test fixtures are child processes that the multi-process tests start by the hundred; a
/// flat option list keeps their command lines short and their parsing obvious, which is all they
/// need (the user-facing `vaultcli` uses swift-argument-parser).
package struct FixtureOptions: Sendable {
    private var values: [String: String] = [:]

    /// Parses `--key value` pairs.
    /// - Throws: ``UsageError`` for a word that is not `--key` or a key without a value.
    package init(_ arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        while let key = remaining.popFirst() {
            guard key.hasPrefix("--"), let value = remaining.popFirst() else {
                throw UsageError(message: "expected --option value pairs, got \(key)")
            }
            values[String(key.dropFirst(2))] = value
        }
    }

    /// The value of `--key`, or `fallback`.
    /// - Throws: ``UsageError`` when neither is there.
    package func string(_ key: String, default fallback: String? = nil) throws(UsageError) -> String {
        guard let value = values[key] ?? fallback else { throw UsageError(message: "--\(key) is required") }
        return value
    }

    /// The value of `--key`, if given.
    package func optionalString(_ key: String) -> String? { values[key] }

    /// The value of `--key` as a whole number of zero or more, or `fallback`.
    /// - Throws: ``UsageError`` when neither is there, or the value is not such a number.
    package func integer(_ key: String, default fallback: Int? = nil) throws(UsageError) -> Int {
        guard let text = values[key] else {
            guard let fallback else { throw UsageError(message: "--\(key) is required") }
            return fallback
        }
        guard let value = Int(text), value >= 0 else { throw UsageError(message: "--\(key) must be a whole number, got \(text)") }
        return value
    }

    /// The value of `--key` as a whole number, if given.
    /// - Throws: ``UsageError`` when it is given and is not a whole number of zero or more.
    package func optionalInteger(_ key: String) throws(UsageError) -> Int? {
        values[key] == nil ? nil : try integer(key)
    }
}
