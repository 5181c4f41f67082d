import Foundation
import SealedStorage

/// A message the channel can carry: `Codable` (as JSON) and named by a stable type string.
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
    private var decoders: [String: @Sendable (Data) throws -> any GroupMessage] = [:]

    /// An allow-list of `types`.
    public init(_ types: [any GroupMessage.Type] = []) {
        for type in types { register(type) }
    }

    /// Adds `type` to the allow-list (replacing a type registered under the same name).
    public mutating func register(_ type: any GroupMessage.Type) {
        decoders[type.messageType] = { data in try JSONDecoder().decode(type, from: data) }
    }

    /// The registered names, sorted.
    public var names: [String] { decoders.keys.sorted() }

    /// Decodes `body` as the type registered under `name`.
    /// - Throws: ``ChannelProtocolError/Kind/unknownMessageType`` for an unregistered name,
    ///   ``ChannelProtocolError/Kind/undecodableMessage`` when the JSON does not fit the type.
    package func decode(name: String, body: Data) throws(ChannelProtocolError) -> any GroupMessage {
        guard let decoder = decoders[name] else {
            throw ChannelProtocolError(.unknownMessageType, "message type \"\(String(name.unicodeScalars.prefix(80)).debugDescription.dropFirst().dropLast())\" is not registered (allowed: \(names.joined(separator: ", ")))")
        }
        do {
            return try decoder(body)
        } catch {
            throw ChannelProtocolError(.undecodableMessage, "a \(name) message of \(body.count) bytes does not decode: \(Self.summary(of: error))")
        }
    }

    /// What went wrong in decoding, without the message's contents: a `DecodingError`'s own
    /// description quotes the values it refused (an enum's raw value, a number), which may be
    /// anything the peer sent, so only the kind of failure and where it happened are kept.
    static func summary(of error: any Error) -> String {
        guard let error = error as? DecodingError else { return "the body is not JSON of this type" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            // Dictionary keys in the path are the peer's own text.
            return keys.isEmpty ? "the top level" : UntrustedText.printable(keys.joined(separator: "."), limit: 200)
        }
        switch error {
        case .typeMismatch(let type, let context): return "expected \(type) at \(path(context))"
        case .valueNotFound(let type, let context): return "no \(type) value at \(path(context))"
        case .keyNotFound(let key, let context): return "missing key \(UntrustedText.printable(key.stringValue, limit: 80)) at \(path(context))"
        case .dataCorrupted(let context): return "invalid value at \(path(context)) (or not valid JSON)"
        @unknown default: return "the body is not JSON of this type"
        }
    }
}

/// The plaintext inside a sealed frame:
/// `kind (1) | id (8, big endian) | type length (1) | type (UTF-8) | body`.
package struct ChannelEnvelope: Sendable, Equatable {
    package enum Kind: UInt8, Sendable {
        /// First sealed frame each way. From the server, `id` is the client's connection id.
        case ready = 1
        /// A one-way message; `id` is 0.
        case message = 2
        /// A request; `id` is chosen by the sender, unique on the connection.
        case request = 3
        /// The response to request `id`.
        case response = 4
        /// Request `id` failed; body is a UTF-8 reason.
        case failure = 5
        /// The sender is closing; body is a UTF-8 reason.
        case goodbye = 6
    }

    static let headerLength = 1 + 8 + 1
    /// The most bytes of type name and body one frame can carry.
    static let capacity = ChannelFrame.maximumBodyLength - ChannelSealer.overhead - headerLength

    package var kind: Kind
    package var id: UInt64
    package var type: String
    /// The body as the JSON coders take and give it: a near-limit message is 64 KB, and keeping
    /// it as `Data` spares a copy on each side of the coder.
    package var bodyData: Data

    /// The body's bytes (for the UTF-8 reasons of failures and goodbyes).
    package var body: [UInt8] { Array(bodyData) }

    /// The plaintext to seal, built in one allocation: the body is copied once.
    package var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.headerLength + type.utf8.count + bodyData.count)
        bytes.append(kind.rawValue)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: id >> UInt64(shift))) }
        bytes.append(UInt8(type.utf8.count))
        bytes.append(contentsOf: type.utf8)
        bytes.append(contentsOf: bodyData)
        return bytes
    }

    package init(kind: Kind, id: UInt64 = 0, type: String = "", body: [UInt8] = []) {
        self.init(kind: kind, id: id, type: type, bodyData: Data(body))
    }

    package init(kind: Kind, id: UInt64, type: String, bodyData: Data) {
        self.kind = kind
        self.id = id
        self.type = type
        self.bodyData = bodyData
    }

    package init(parsing bytes: [UInt8]) throws(ChannelProtocolError) {
        guard bytes.count >= Self.headerLength else {
            throw ChannelProtocolError(.malformedMessage, "a message is at least \(Self.headerLength) bytes, this one \(bytes.count)")
        }
        guard let kind = Kind(rawValue: bytes[0]) else {
            throw ChannelProtocolError(.malformedMessage, "unknown message kind \(bytes[0])")
        }
        let typeLength = Int(bytes[9])
        guard bytes.count >= Self.headerLength + typeLength else {
            throw ChannelProtocolError(.malformedMessage, "the type name runs past the end of the message")
        }
        let typeBytes = bytes[Self.headerLength..<Self.headerLength + typeLength]
        guard let type = String(validating: typeBytes, as: UTF8.self) else {
            throw ChannelProtocolError(.malformedMessage, "the type name is not UTF-8")
        }
        self.kind = kind
        self.id = bytes[1..<9].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        self.type = type
        self.bodyData = Data(bytes[(Self.headerLength + typeLength)...])
    }

    /// The envelope of `message`, refusing one too large for a frame.
    package static func encoding(_ message: any GroupMessage, kind: Kind, id: UInt64) throws(GroupMessagingError) -> ChannelEnvelope {
        let type = Swift.type(of: message).messageType
        let typeLength = type.utf8.count
        guard (1...255).contains(typeLength) else {
            throw GroupMessagingError(.invalidMessage, "message type names are 1 to 255 bytes; \(type.prefix(40)) is \(typeLength)")
        }
        let body: Data
        do {
            body = Data(try MessageJSONEncoder.encode(message))
        } catch {
            throw GroupMessagingError(.invalidMessage, "a \(type) message does not encode: \(error)", underlying: error)
        }
        guard typeLength + body.count <= capacity else {
            throw GroupMessagingError(.invalidMessage, "a \(type) message encodes to \(body.count) bytes; with its type name a frame carries at most \(capacity); split it or send a reference to shared storage instead")
        }
        return ChannelEnvelope(kind: kind, id: id, type: type, bodyData: body)
    }
}
