import Foundation
import SealedStorage

/// A message the channel can carry: `Codable` (as JSON, or as CBOR to peers that read it) and
/// named by a stable type string.
///
/// The receiver decodes only types it registered in a ``GroupMessageTypes``; the name on the
/// wire picks the type, so it must stay the same across versions of the app.
///
/// ```swift
/// struct TokenRefreshed: GroupMessage {
///     static let messageType = "com.example.token-refreshed"
///     var expiresAt: Date
/// }
/// ```
public protocol GroupMessage: Codable, Sendable {
    /// The type's name on the wire: 1 to 255 bytes of UTF-8, unique among the registered types.
    static var messageType: String { get }
}

/// The allow-list of message types an end decodes. Anything else closes the connection.
public struct GroupMessageTypes: Sendable {
    private var decoders: [String: @Sendable (Data, ChannelBodyFormat) throws -> any GroupMessage] = [:]

    /// An allow-list of `types`.
    public init(_ types: [any GroupMessage.Type] = []) {
        for type in types { register(type) }
    }

    /// Adds `type` to the allow-list (replacing a type registered under the same name).
    public mutating func register(_ type: any GroupMessage.Type) {
        decoders[type.messageType] = { data, format in
            switch format {
            case .json: return try JSONDecoder().decode(type, from: data)
            case .cbor: return try MessageCBORDecoder.decode(type, from: data)
            }
        }
    }

    /// The registered names, sorted.
    public var names: [String] { decoders.keys.sorted() }

    /// Decodes `body`, written in `format`, as the type registered under `name`.
    /// - Throws: ``ChannelProtocolError/Kind/unknownMessageType`` for an unregistered name,
    ///   ``ChannelProtocolError/Kind/undecodableMessage`` when the body does not fit the type.
    package func decode(name: String, body: Data, format: ChannelBodyFormat = .json) throws(ChannelProtocolError) -> any GroupMessage {
        guard let decoder = decoders[name] else {
            throw ChannelProtocolError(.unknownMessageType, "message type \"\(String(name.unicodeScalars.prefix(80)).debugDescription.dropFirst().dropLast())\" is not registered (allowed: \(names.joined(separator: ", ")))")
        }
        do {
            return try decoder(body, format)
        } catch {
            throw ChannelProtocolError(.undecodableMessage, "a \(name) message of \(body.count) bytes\(format == .cbor ? " of CBOR" : "") does not decode: \(Self.summary(of: error, format: format))")
        }
    }

    /// What went wrong in decoding, without the message's contents: a `DecodingError`'s own
    /// description quotes the values it refused (an enum's raw value, a number), which may be
    /// anything the peer sent, so only the kind of failure and where it happened are kept. A
    /// CBOR body's errors also give the byte offset and what the reader refused
    /// (``CBORReadError``, which quotes no value either).
    static func summary(of error: any Error, format: ChannelBodyFormat = .json) -> String {
        let notOfType = format == .cbor ? "the body is not CBOR of this type" : "the body is not JSON of this type"
        guard let error = error as? DecodingError else { return notOfType }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            // Dictionary keys in the path are the peer's own text.
            return keys.isEmpty ? "the top level" : UntrustedText.printable(keys.joined(separator: "."), limit: 200)
        }
        func cause(_ context: DecodingError.Context) -> String {
            guard let cause = context.underlyingError as? CBORReadError else { return "" }
            return " (\(cause))"
        }
        switch error {
        case .typeMismatch(let type, let context): return "expected \(type) at \(path(context))\(cause(context))"
        case .valueNotFound(let type, let context): return "no \(type) value at \(path(context))\(cause(context))"
        case .keyNotFound(let key, let context): return "missing key \(UntrustedText.printable(key.stringValue, limit: 80)) at \(path(context))\(cause(context))"
        case .dataCorrupted(let context):
            guard format == .cbor else { return "invalid value at \(path(context)) (or not valid JSON)" }
            return "invalid value at \(path(context))\(cause(context))"
        @unknown default: return notOfType
        }
    }
}
