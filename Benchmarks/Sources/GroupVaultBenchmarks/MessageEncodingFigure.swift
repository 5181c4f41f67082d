import Foundation
@_spi(Benchmarks) import GroupMessaging

/// The channel's own JSON encoder beside Foundation's `JSONEncoder` writing the same JSON: the
/// row that has to show the hand-written encoder earns its lines (issue 23). Then the CBOR body
/// two ends of this version exchange, encoded and decoded, beside the JSON one (issue 19).
/// In-process, no I/O.
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
        outcome.sections.append(try cborBodySection(ping, json: ours, shape: shape.name, options: options))
    }
    return outcome
}

/// The CBOR body of `ping` encoded and decoded, beside its JSON body (`json`) encoded by the
/// channel's JSON encoder and decoded by `JSONDecoder`, as a peer that reads only JSON gets it.
private func cborBodySection(_ ping: BenchPing, json: [UInt8], shape: String, options: Options) throws -> Section {
    let cbor = try MessageCBOREncoder.encode(ping)
    let (cborData, jsonData) = (Data(cbor), Data(json))
    guard try MessageCBORDecoder.decode(BenchPing.self, from: cborData).padding == ping.padding else {
        throw BenchmarkFailure("the CBOR body of \(shape) does not decode to the message it encodes")
    }
    let decoder = JSONDecoder()
    let results = try interleave([
        Contender(label: "`MessageCBOREncoder.encode`, \(shape)", role: .groupVault) {
            try .timing { guard try MessageCBOREncoder.encode(ping).count == cbor.count else { throw BenchmarkFailure("encoding changed") } }
        },
        Contender(label: "`MessageCBORDecoder.decode`, \(shape)", role: .groupVault) {
            try .timing {
                guard try MessageCBORDecoder.decode(BenchPing.self, from: cborData).padding.utf8.count == ping.padding.utf8.count else {
                    throw BenchmarkFailure("decoding changed")
                }
            }
        },
        Contender(label: "`MessageJSONEncoder.encode`, \(shape)", role: .reference(lessWork: nil)) {
            try .timing { guard try MessageJSONEncoder.encode(ping).count == json.count else { throw BenchmarkFailure("encoding changed") } }
        },
        Contender(label: "`JSONDecoder.decode`, \(shape)", role: .reference(lessWork: nil)) {
            try .timing {
                guard try decoder.decode(BenchPing.self, from: jsonData).padding.utf8.count == ping.padding.utf8.count else {
                    throw BenchmarkFailure("decoding changed")
                }
            }
        },
    ], options.schedule)
    return Section(
        title: "Channel message body, CBOR and JSON, \(shape)",
        notes: [
            "The same `BenchPing` body as above, as two ends of this version exchange it (CBOR: \(cbor.count) bytes) and as an end "
                + "that reads only JSON gets it (\(json.count) bytes): each encoded by the channel's encoder and decoded by the "
                + "receiver's decoder (`MessageCBORDecoder`; `JSONDecoder` for JSON). A round trip decodes one body each way.",
        ],
        table: timeTable(results))
}
