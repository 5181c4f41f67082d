import ArgumentParser
import Foundation

/// `--json`: every command prints either aligned tables for people or JSON with the stable
/// shape documented in docs/CLI.md: one object per line, the same format for every command.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON, one object per line (shapes in docs/CLI.md), instead of a table; errors too, on standard error.")
    var json = false

    /// Prints `value` as one line of JSON when `--json` was given, and otherwise runs `human`.
    func emit<Value: Encodable>(_ value: Value, human: () -> Void) throws {
        if json {
            Swift.print(try JSONOutput.encodeLine(value))
        } else {
            human()
        }
    }
}

/// The JSON encoding of every `--json` document: one line per object, sorted keys (stable
/// diffs), ISO 8601 dates, slashes unescaped, and nothing in it that a terminal would act on
/// (``terminalSafe(_:)``).
///
/// One line per object for every command, not pretty-printing for some: the streams
/// (`records watch`, `notify watch`, `channel serve`) can only be one object per line, and a
/// single format lets the same tools (`jq -c`, `while read`, `grep`) read every command.
/// `jq .` pretty-prints for a person.
enum JSONOutput {
    /// `value` as an indented document: only for a payload shown in text mode
    /// (`records show --reveal`), never for `--json`.
    static func encodeIndented<Value: Encodable>(_ value: Value) throws -> String {
        try encode(value, formatting: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
    }

    /// `value` on one line: every `--json` output.
    static func encodeLine<Value: Encodable>(_ value: Value) throws -> String {
        try encode(value, formatting: [.sortedKeys, .withoutEscapingSlashes])
    }

    private static func encode<Value: Encodable>(_ value: Value, formatting: JSONEncoder.OutputFormatting) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        encoder.dateEncodingStrategy = .iso8601
        return terminalSafe(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// `json` with every character a terminal or a reader could take for something else
    /// written as a `\uXXXX` escape, which decodes to the same string.
    ///
    /// JSONEncoder escapes only what JSON requires (`"`, `\`, U+0000 to U+001F), so a name
    /// from disk holding U+009B (which alone starts a control sequence on many terminals),
    /// DEL, a bidirectional override, a zero-width character or U+2028 reached the terminal as
    /// it is whenever `--json` output was simply looked at. Those characters are never part of
    /// JSON's own syntax, so outside strings they cannot occur and replacing them everywhere
    /// only changes strings, into equal strings.
    static func terminalSafe(_ json: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            guard needsEscape(scalar) else {
                result.append(scalar)
                continue
            }
            // Outside the Basic Multilingual Plane (U+E0001, tag characters): a surrogate pair.
            for unit in String(scalar).utf16 {
                result.append(contentsOf: "\\u\(hex4(unit))".unicodeScalars)
            }
        }
        return String(result)
    }

    /// The characters ``UntrustedText`` escapes for the terminal, except the C0 controls
    /// JSONEncoder has escaped already (a newline it writes between lines stays a newline).
    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x20 { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    private static func hex4(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
