/// How the body of a message, request or response envelope is written: JSON, which every end
/// reads, or CBOR, which an end reads only if its ready said so (docs/MESSAGING.md, "Body
/// formats"). The high bit of the envelope's kind byte marks a CBOR body.
package enum ChannelBodyFormat: Sendable, Hashable {
    /// Compact UTF-8 JSON (RFC 8259): what every version of the channel reads.
    case json
    /// The channel's subset of CBOR (RFC 8949).
    case cbor

    /// The bit of the kind byte that marks a CBOR body.
    static let cborKindBit: UInt8 = 0x80
}

/// The body formats an end reads besides JSON, as its ready's body lists them: one byte each,
/// 0x01 for CBOR. An end that predates CBOR sends an empty ready body (and ignores the peer's),
/// so it is sent JSON. Bytes naming formats this end does not know are ignored, so that a later
/// format can be offered without breaking this version.
///
/// The readies are sealed under keys bound to both hellos, so nobody between the ends can strip
/// the list to force JSON.
package struct ChannelReadableFormats: Sendable, Hashable {
    /// The ready's byte naming CBOR.
    static let cborByte: UInt8 = 0x01

    /// Whether the end reads CBOR bodies.
    package var cbor: Bool

    /// What this version reads: JSON and CBOR.
    package static let current = ChannelReadableFormats(cbor: true)
    /// What an end that predates CBOR reads, and what an empty ready body says.
    package static let jsonOnly = ChannelReadableFormats(cbor: false)

    /// Formats that include CBOR or not.
    package init(cbor: Bool) {
        self.cbor = cbor
    }

    /// The formats a ready's body lists; unknown bytes are ignored.
    package init(readyBody: [UInt8]) {
        cbor = readyBody.contains(Self.cborByte)
    }

    /// The ready's body that lists these formats.
    package var readyBody: [UInt8] { cbor ? [Self.cborByte] : [] }

    /// The format to write bodies in to an end that reads these formats: CBOR when it can.
    package var preferred: ChannelBodyFormat { cbor ? .cbor : .json }

    /// Whether a body in `format` may be read (or sent) under these formats.
    package func reads(_ format: ChannelBodyFormat) -> Bool { format == .json || cbor }
}
