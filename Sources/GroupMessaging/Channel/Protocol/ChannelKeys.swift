import SealedStorage

/// The two keys of one connection, derived from the group key and both hellos.
///
/// ```
/// channel   = crypto_kdf_derive_from_key(32, id 1, ctx "GVchanl1", group key)
/// root      = BLAKE2b-256(key: channel, message: "GroupVault channel v1" || 0x00
///                                                 || group (UTF-8) || 0x00
///                                                 || client hello (42) || server hello (42))
/// clientKey = crypto_kdf_derive_from_key(32, id 1, ctx "GVchanl1", root)   client -> server
/// serverKey = crypto_kdf_derive_from_key(32, id 2, ctx "GVchanl1", root)   server -> client
/// ```
///
/// Both nonces are in `root`, so keys are new on every connection even if one end reuses a
/// nonce, and frames recorded on one connection open on no other. Without the group key the
/// channel key, and so everything after it, is unknown.
package struct ChannelKeys: Sendable {
    static let context: StaticString = "GVchanl1"
    static let label = Array("GroupVault channel v1".utf8)

    /// Seals frames from the client to the server.
    let clientToServer: SymmetricKey
    /// Seals frames from the server to the client.
    let serverToClient: SymmetricKey

    package init(groupKey: SymmetricKey, group: String, clientHello: ChannelHello, serverHello: ChannelHello) {
        let channel = KeyDerivation.deriveKey(from: groupKey, context: Self.context, id: 1)
        let transcript = Self.label + [0] + Array(group.utf8) + [0] + clientHello.encoded + serverHello.encoded
        let root = KeyedHash.blake2b256(transcript, key: channel)
        clientToServer = KeyDerivation.deriveKey(from: root, context: Self.context, id: 1)
        serverToClient = KeyDerivation.deriveKey(from: root, context: Self.context, id: 2)
    }
}
