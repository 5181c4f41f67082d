import CSodium

/// A 32-byte key sealed under a key derived from a passphrase with Argon2id: in the keyring's
/// passphrase mode, the unlock key at rest (`Keychains/passphrase.wrapped`), unwrapped only by
/// `unlock` (Keyring/Keys/MasterKeyWrapping.swift).
///
/// Format (big-endian, 112 bytes): `"GVPW"`, version `1`, three zero bytes, Argon2id ops limit
/// (8 bytes), memory limit in bytes (8), salt (16), XChaCha20-Poly1305 nonce (24), sealed key
/// with its tag (48). Everything before the sealed key is the additional authenticated data,
/// so no parameter can be altered without the unwrap failing; and parameters read from a file
/// are bounded (``Parameters/maximum``) before any work is done, so a planted file cannot make
/// an unwrap allocate gigabytes. Parameters are stored per wrap, so they can be raised later:
/// ``needsUpgrade(to:)`` says when to rewrap after a successful unwrap.
package struct PassphraseWrappedKey: Sendable, Equatable {
    /// Argon2id cost.
    package struct Parameters: Sendable, Equatable {
        /// Passes over memory (`opslimit`).
        package var operations: UInt64
        /// Memory in bytes (`memlimit`).
        package var memoryBytes: UInt64

        package init(operations: UInt64, memoryBytes: UInt64) {
            self.operations = operations
            self.memoryBytes = memoryBytes
        }

        /// libsodium's `MODERATE` limits (3 passes, 256 MiB): about a second on a laptop, for
        /// a secret that is unwrapped once per login.
        package static let moderate = Parameters(
            operations: UInt64(crypto_pwhash_opslimit_moderate()), memoryBytes: UInt64(crypto_pwhash_memlimit_moderate()))
        /// libsodium's minimum limits: for tests only, where the cost is not the point.
        package static let minimum = Parameters(
            operations: UInt64(crypto_pwhash_opslimit_min()), memoryBytes: UInt64(crypto_pwhash_memlimit_min()))
        /// The most a stored wrap may ask for: 16 passes, 1 GiB.
        package static let maximum = Parameters(operations: 16, memoryBytes: 1 << 30)

        var isWithinBounds: Bool {
            operations >= Self.minimum.operations && operations <= Self.maximum.operations
                && memoryBytes >= Self.minimum.memoryBytes && memoryBytes <= Self.maximum.memoryBytes
        }
    }

    /// Why bytes are not a wrapped key, or a passphrase does not open one.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// Not 112 bytes, wrong magic or unknown version.
        case malformed
        /// Parameters outside ``Parameters/minimum`` ... ``Parameters/maximum``.
        case parametersOutOfBounds
        /// The derivation failed (out of memory).
        case derivationFailed
        /// Wrong passphrase, or altered bytes: the two cannot be told apart, by design.
        case wrongPassphrase

        package var description: String {
            switch self {
            case .malformed: "not a GroupVault passphrase-wrapped key (wrong size, magic or version)"
            case .parametersOutOfBounds: "its Argon2id parameters are outside the accepted range (at most 16 passes and 1 GiB)"
            case .derivationFailed: "the Argon2id derivation failed (not enough memory)"
            case .wrongPassphrase: "the passphrase is wrong (or the wrapped key was altered)"
            }
        }
    }

    private static let magic: [UInt8] = Array("GVPW".utf8)
    private static let version: UInt8 = 1
    private static let saltByteCount = 16
    private static let keyByteCount = 32
    /// The encoded size.
    package static let byteCount = 8 + 16 + saltByteCount + XChaCha20Poly1305.nonceByteCount + keyByteCount + XChaCha20Poly1305.tagByteCount

    package let parameters: Parameters
    private let salt: [UInt8]
    private let nonce: XChaCha20Poly1305.Nonce
    private let sealed: [UInt8]

    /// Seals `key` under `passphrase` with fresh salt and nonce.
    package static func wrap(_ key: SymmetricKey, passphrase: SecureBytes, parameters: Parameters = .moderate) throws(Failure) -> PassphraseWrappedKey {
        guard parameters.isWithinBounds else { throw .parametersOutOfBounds }
        let salt = SecureRandom.bytes(count: saltByteCount)
        let nonce = XChaCha20Poly1305.Nonce.random()
        let header = Self.header(parameters: parameters, salt: salt)
        let wrappingKey = try derive(passphrase: passphrase, salt: salt, parameters: parameters)
        let plaintext = key.withUnsafeBytes { Array($0) }
        let sealed = XChaCha20Poly1305.seal(plaintext, using: wrappingKey, nonce: nonce, authenticating: header)
        return PassphraseWrappedKey(parameters: parameters, salt: salt, nonce: nonce, sealed: sealed)
    }

    /// Reads the encoded form, checking its size, magic, version and parameter bounds.
    package init(decoding bytes: [UInt8]) throws(Failure) {
        guard bytes.count == Self.byteCount, Array(bytes[0..<4]) == Self.magic, bytes[4] == Self.version,
              bytes[5] == 0, bytes[6] == 0, bytes[7] == 0
        else { throw .malformed }
        func uint64(at offset: Int) -> UInt64 { bytes[offset..<(offset + 8)].reduce(0) { $0 << 8 | UInt64($1) } }
        let parameters = Parameters(operations: uint64(at: 8), memoryBytes: uint64(at: 16))
        guard parameters.isWithinBounds else { throw .parametersOutOfBounds }
        var offset = 24
        self.parameters = parameters
        self.salt = Array(bytes[offset..<(offset + Self.saltByteCount)])
        offset += Self.saltByteCount
        self.nonce = XChaCha20Poly1305.Nonce(validated: bytes[offset..<(offset + XChaCha20Poly1305.nonceByteCount)])  // size checked above
        offset += XChaCha20Poly1305.nonceByteCount
        self.sealed = Array(bytes[offset...])
    }

    private init(parameters: Parameters, salt: [UInt8], nonce: XChaCha20Poly1305.Nonce, sealed: [UInt8]) {
        self.parameters = parameters
        self.salt = salt
        self.nonce = nonce
        self.sealed = sealed
    }

    /// The encoded form (see the type's documentation).
    package var encoded: [UInt8] {
        Self.header(parameters: parameters, salt: salt) + nonce.bytes + sealed
    }

    /// The key, when `passphrase` is the one it was wrapped under.
    package func unwrap(passphrase: SecureBytes) throws(Failure) -> SymmetricKey {
        let wrappingKey = try Self.derive(passphrase: passphrase, salt: salt, parameters: parameters)
        let plaintext: [UInt8]
        do {
            plaintext = try XChaCha20Poly1305.open(sealed, using: wrappingKey, nonce: nonce, authenticating: Self.header(parameters: parameters, salt: salt))
        } catch {
            throw .wrongPassphrase
        }
        return SymmetricKey(storage: SecureBytes(copying: plaintext))
    }

    /// Whether a wrap with `parameters` would cost more than this one: rewrap after the next
    /// successful unwrap.
    package func needsUpgrade(to parameters: Parameters) -> Bool {
        parameters.operations > self.parameters.operations || parameters.memoryBytes > self.parameters.memoryBytes
    }

    private static func header(parameters: Parameters, salt: [UInt8]) -> [UInt8] {
        func bigEndian(_ value: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        return magic + [version, 0, 0, 0] + bigEndian(parameters.operations) + bigEndian(parameters.memoryBytes) + salt
    }

    private static func derive(passphrase: SecureBytes, salt: [UInt8], parameters: Parameters) throws(Failure) -> SymmetricKey {
        Sodium.ensureInitialized()
        var status: Int32 = -1
        let derived = SecureBytes(count: keyByteCount) { output in
            status = passphrase.withUnsafeBytes { phrase in
                crypto_pwhash(
                    output.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(output.count),
                    phrase.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(phrase.count),
                    salt, parameters.operations, Int(parameters.memoryBytes), crypto_pwhash_alg_argon2id13())
            }
        }
        guard status == 0 else { throw .derivationFailed }
        return SymmetricKey(storage: derived)
    }
}
