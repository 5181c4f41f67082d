import ArgumentParser
import Foundation

/// `--json`: every command prints either aligned tables for people or one JSON document with
/// the stable shape documented in docs/CLI.md.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print one JSON document (shapes in docs/CLI.md) instead of a table.")
    var json = false

    /// Prints `value` as JSON when `--json` was given, and otherwise runs `human`.
    func emit<Value: Encodable>(_ value: Value, human: () -> Void) throws {
        if json {
            Swift.print(try JSONOutput.encode(value))
        } else {
            human()
        }
    }
}

/// The JSON encoding of every `--json` document: sorted keys (stable diffs), ISO 8601 dates,
/// slashes unescaped. JSON string escaping makes names from disk safe as they are.
enum JSONOutput {
    static func encode<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
