/// Why a cryptographic operation did not produce a result. Never carries key or message bytes.
package enum CryptoFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// A key was not 32 bytes long.
    case invalidKeySize(Int)
    /// A nonce was not 24 bytes long.
    case invalidNonceSize(Int)
    /// The ciphertext is shorter than the 16-byte tag, so it cannot be authentic.
    case ciphertextTooShort(Int)
    /// The tag did not verify: wrong key, wrong additional data, or altered bytes.
    case authenticationFailed

    package var description: String {
        switch self {
        case .invalidKeySize(let size): "key is \(size) bytes; expected 32"
        case .invalidNonceSize(let size): "nonce is \(size) bytes; expected 24"
        case .ciphertextTooShort(let size): "ciphertext is \(size) bytes, shorter than the 16-byte tag"
        case .authenticationFailed: "authentication failed (wrong key, wrong associated data, or altered bytes)"
        }
    }
}
