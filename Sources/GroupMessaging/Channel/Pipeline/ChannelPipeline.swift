import NIOCore
import SealedStorage

/// The handlers of one connection, from the socket inwards:
///
/// 1. `ByteToMessageHandler(ChannelFrameDecoder)`: cuts frames from the byte stream;
/// 2. ``ChannelHandshakeHandler``: hellos, keys, readies; replaced by
///    ``ChannelSealingHandler`` (opens and seals frames) once done;
/// 3. ``ChannelConnectionHandler``: backpressure, and the server's or client's delegate.
extension ChannelPipeline.SynchronousOperations {
    /// Installs a client connection's handlers: it holds the group key `key` with id `keyID`.
    func addChannelClientHandlers(key: SymmetricKey, keyID: UInt32, group: String, delegate: any ChannelConnectionDelegate) throws {
        try addHandlers([
            ByteToMessageHandler(ChannelFrameDecoder(firstFrameLength: ChannelHello.encodedLength)),
            ChannelHandshakeHandler(.client(keyID: keyID, key: key), group: group, timeout: .seconds(30)),
            ChannelConnectionHandler(delegate: delegate, provisionalID: nil),
        ])
    }

    /// Installs a server connection's handlers: the connection gets `connectionID`, and a client
    /// must complete the handshake within `handshakeTimeout`.
    func addChannelServerHandlers(
        connectionID: UInt64, group: String, handshakeTimeout: TimeAmount, delegate: any ChannelConnectionDelegate
    ) throws {
        try addHandlers([
            ByteToMessageHandler(ChannelFrameDecoder(firstFrameLength: ChannelHello.encodedLength)),
            ChannelHandshakeHandler(
                .server(connectionID: connectionID, groupKey: { [delegate] id in delegate.groupKey(id: id) }),
                group: group, timeout: handshakeTimeout),
            ChannelConnectionHandler(delegate: delegate, provisionalID: connectionID),
        ])
    }
}
