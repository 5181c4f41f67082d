import Foundation
@_spi(Benchmarks) import GroupMessaging

extension FuzzTarget {
    /// The channel's CBOR body reader on arbitrary bytes, for a message type with nested
    /// optionals, arrays, strings, data, a dictionary and numbers of several widths.
    ///
    /// It must never crash, whatever the declared lengths and nesting, and may refuse only with
    /// a `DecodingError`. What it accepts must survive the encoder and the reader unchanged (NaN
    /// and -0 included): the encoder writes only what the reader takes, and nothing is rounded.
    static let channelCBOR = FuzzTarget(
        name: "channel-cbor",
        summary: "MessageCBORDecoder refuses anything outside the subset with a DecodingError; what it accepts comes back unchanged through the encoder",
        run: { input throws(FuzzFinding) in
            let message: CBORFuzzMessage
            do {
                message = try MessageCBORDecoder.decode(CBORFuzzMessage.self, from: Data(input))
            } catch is DecodingError {
                return .refused
            } catch {
                throw FuzzFinding("the reader refused with \(type(of: error)), not a DecodingError")
            }
            do {
                let again = try MessageCBORDecoder.decode(CBORFuzzMessage.self, from: Data(MessageCBOREncoder.encode(message)))
                try expect(again == message, "an accepted body changed through the encoder and the reader")
            } catch let finding as FuzzFinding {
                throw finding
            } catch {
                throw FuzzFinding("an accepted body does not round-trip: \(error)")
            }
            return .accepted
        },
        seeds: {
            let full = CBORFuzzMessage(
                id: 1 << 40, count: -3, ratio: 0.5, text: "héllo", tags: ["a", ""], flag: true,
                parts: [.init(name: "p", data: Data([0, 1, 2]), values: [1.5, -.infinity], children: [.init(name: nil, data: nil, values: nil, children: [])])],
                counts: ["x": 1, "y": -1])
            let minimal = CBORFuzzMessage(id: 0, count: nil, ratio: nil, text: "", tags: nil, flag: nil, parts: [], counts: nil)
            return [
                "valid-full": try MessageCBOREncoder.encode(full),
                "valid-minimal": try MessageCBOREncoder.encode(minimal),
                "indefinite-map": [0xBF, 0xFF],
                "tag": [0xC1, 0x00],
                "huge-array": [0x9B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
                "deep": [UInt8](repeating: 0x81, count: 70) + [0x80],
            ]
        })
}

/// The message ``FuzzTarget/channelCBOR`` decodes: something of every kind the subset maps.
/// Equal means the same bits for floating-point numbers, so that NaN equals itself and -0 does
/// not equal 0.
struct CBORFuzzMessage: Codable, Equatable {
    struct Part: Codable, Equatable {
        var name: String?
        var data: Data?
        var values: [Double]?
        var children: [Part]?

        static func == (a: Part, b: Part) -> Bool {
            a.name == b.name && a.data == b.data && a.children == b.children
                && a.values?.map(\.bitPattern) == b.values?.map(\.bitPattern)
        }
    }

    var id: UInt64
    var count: Int8?
    var ratio: Float?
    var text: String
    var tags: [String]?
    var flag: Bool?
    var parts: [Part]
    var counts: [String: Int]?

    static func == (a: CBORFuzzMessage, b: CBORFuzzMessage) -> Bool {
        a.id == b.id && a.count == b.count && a.ratio?.bitPattern == b.ratio?.bitPattern && a.text == b.text && a.tags == b.tags
            && a.flag == b.flag && a.parts == b.parts && a.counts == b.counts
    }
}
