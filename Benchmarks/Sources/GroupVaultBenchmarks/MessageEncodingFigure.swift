import Foundation
@_spi(Benchmarks) import GroupMessaging

/// The channel's own JSON encoder beside Foundation's `JSONEncoder` writing the same JSON: the
/// row that has to show the hand-written encoder earns its lines (issue 23). In-process, no I/O.
func messageEncodingFigure(options: Options) throws -> Outcome {
    var outcome = Outcome()
    // Text: the padding a channel figure sends, then text where every eighth character needs
    // an escape and a fifth are not ASCII (a JSON-heavy payload).
    let shapes: [(name: String, padding: String)] = [
        ("16 B of text", String(repeating: "p", count: 16)),
        ("64,000 B of text", String(repeating: "p", count: 64_000)),
        ("64,000 B with escapes and non-ASCII", String(repeating: "abc\"é\nfg/", count: 64_000 / 11)),
    ]
    for shape in shapes {
        let ping = BenchPing(sequence: 1, padding: shape.padding)
        let foundation = JSONEncoder()
        // The channel's bytes: `/` unescaped.
        foundation.outputFormatting = [.withoutEscapingSlashes]
        let ours = try MessageJSONEncoder.encode(ping)
        // The same JSON value and length; the order of the keys may differ (JSONEncoder's
        // follows a dictionary's, which varies from process to process).
        let theirs = try Array(foundation.encode(ping))
        let decoder = JSONDecoder()
        let (oursRead, theirsRead) = (try decoder.decode(BenchPing.self, from: Data(ours)), try decoder.decode(BenchPing.self, from: Data(theirs)))
        guard theirs.count == ours.count, oursRead.sequence == theirsRead.sequence, oursRead.padding == theirsRead.padding else {
            throw BenchmarkFailure("MessageJSONEncoder and JSONEncoder wrote different JSON for \(shape.name) "
                + "(\(String(decoding: ours.prefix(60), as: UTF8.self)) against \(String(decoding: theirs.prefix(60), as: UTF8.self))): "
                + "the figure would not compare like with like")
        }
        let handWritten = "`MessageJSONEncoder.encode`, \(shape.name)"
        let jsonEncoder = "`JSONEncoder` with `.withoutEscapingSlashes` (the same JSON), \(shape.name)"
        let copy = "copying the message's UTF-8 into a new array, \(shape.name)"
        let results = try interleave([
            Contender(label: handWritten, role: .groupVault) {
                try .timing { guard try MessageJSONEncoder.encode(ping).count == ours.count else { throw BenchmarkFailure("encoding changed") } }
            },
            Contender(label: jsonEncoder, role: .reference(lessWork: nil)) {
                try .timing { guard try foundation.encode(ping).count == ours.count else { throw BenchmarkFailure("encoding changed") } }
            },
            Contender(label: copy, role: .floor) {
                .timing { precondition(Array(ping.padding.utf8).count >= ping.padding.utf8.count) }
            },
        ], options.schedule)
        outcome.sections.append(Section(
            title: "Channel message encoding, \(shape.name)",
            notes: [
                "The body of a channel request (`BenchPing`, as the channel figures send it) encoded to JSON in this process: "
                    + "by the channel's own encoder, and by Foundation's `JSONEncoder` set to write the same JSON (the same value and "
                    + "length, checked before timing; only the order of the keys may differ). The floor copies the padding's UTF-8, which any encoder must at least do.",
            ],
            table: timeTable(results)))
        outcome.checks.append(.ratio(
            "channel message encoding against JSONEncoder, \(shape.name)", of: handWritten, over: jsonEncoder,
            named: "JSONEncoder", in: results, limit: 1, target: "≤ JSONEncoder (the hand-written encoder earns its lines)"))
    }
    return outcome
}
