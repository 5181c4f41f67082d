/// One sealed value as GroupVault stores it: `format | nonce | ciphertext | tag`, after
/// swift-crypto's `ChaChaPoly.SealedBox` (its combined representation is `nonce | ciphertext |
/// tag`; GroupVault's starts with a format, so a reader can tell what it holds before it
/// opens anything).
///
/// - `format`: an optional magic (`"GVKD"`, `"GVSE"`, or nothing) and a version byte;
/// - `nonce`: 24 bytes, XChaCha20-Poly1305's (fresh from the CSPRNG for every seal);
/// - `ciphertext`: as long as the plaintext;
/// - `tag`: 16 bytes, Poly1305's, over the ciphertext and the caller's additional data.
///
/// The format is not authenticated by the box itself: every user puts it at the start of its
/// additional data, which also binds what the value is to where it is (a group, a row, a kind).
///
/// ```swift
/// let format = SealedBox.Format(version: 1)
/// let box = SealedBox.seal(plaintext, format: format, using: key, authenticating: additionalData)
/// store(box.combined)
/// let read = try SealedBox(combined: loaded, format: format)
/// let opened = try read.open(using: key, authenticating: additionalData)
/// ```
///
/// Reading never traps: bytes too short for the format, nonce and tag, or starting with another
/// magic or version, are a ``Malformation``, thrown before any cryptography runs.
package struct SealedBox: Sendable, Equatable {
    /// What precedes the nonce: a magic naming the kind of value (possibly empty) and a version.
    package struct Format: Sendable, Hashable {
        /// The bytes naming the kind of value, e.g. `"GVKD"`; empty for a database column whose
        /// kind its table already says.
        package let magic: [UInt8]
        /// The format version.
        package let version: UInt8

        /// The format `magic` (UTF-8) followed by `version`.
        package init(magic: String = "", version: UInt8) {
            self.magic = Array(magic.utf8)
            self.version = version
        }

        /// The bytes of this format as they start a box: the magic, then the version.
        package var bytes: [UInt8] { magic + [version] }

        /// The number of bytes the format takes.
        package var byteCount: Int { magic.count + 1 }
    }

    /// Why bytes are not a sealed box of the expected format. Says nothing about the key:
    /// nothing has been opened yet.
    package enum Malformation: Error, Sendable, Equatable, CustomStringConvertible {
        /// Fewer bytes than the format, nonce and tag take.
        case truncated(byteCount: Int, minimum: Int)
        /// The bytes do not start with the expected magic: not this kind of value.
        case foreignMagic
        /// The magic is right but the version is none of those accepted.
        case unknownVersion(UInt8)

        package var description: String {
            switch self {
            case .truncated(let byteCount, let minimum): "\(byteCount) bytes, shorter than the \(minimum) of an empty sealed value"
            case .foreignMagic: "not a GroupVault sealed value of this kind (wrong magic)"
            case .unknownVersion(let version): "format version \(version), which this GroupVault does not read"
            }
        }
    }

    /// The whole box as stored: format, nonce, ciphertext, tag.
    package let combined: [UInt8]
    /// The format the box starts with.
    package let format: Format

    /// The size of a box of `format` sealing `plaintextByteCount` bytes.
    package static func byteCount(format: Format, plaintextByteCount: Int) -> Int {
        format.byteCount + XChaCha20Poly1305.nonceByteCount + plaintextByteCount + XChaCha20Poly1305.tagByteCount
    }

    /// Reads `combined` as a box of `format`.
    /// - Throws: ``Malformation``: too short, another magic, or another version, checked in
    ///   that order (a reader can report a short file before guessing at its kind).
    package init(combined: [UInt8], format: Format) throws(Malformation) {
        try self.init(combined: combined, formats: [format])
    }

    /// Reads `combined` as a box of one of `formats`, which share one magic and differ by
    /// version (a table with rows of two versions); ``format`` says which it is.
    /// - Throws: ``Malformation``, as ``init(combined:format:)``.
    package init(combined: [UInt8], formats: [Format]) throws(Malformation) {
        precondition(!formats.isEmpty && formats.allSatisfy { $0.magic == formats[0].magic }, "accepted formats share one magic")
        let magic = formats[0].magic
        let minimum = Self.byteCount(format: formats[0], plaintextByteCount: 0)
        guard combined.count >= minimum else { throw .truncated(byteCount: combined.count, minimum: minimum) }
        guard combined.starts(with: magic) else { throw .foreignMagic }
        let version = combined[magic.count]
        guard let format = formats.first(where: { $0.version == version }) else { throw .unknownVersion(version) }
        self.combined = combined
        self.format = format
    }

    private init(validated combined: [UInt8], format: Format) {
        self.combined = combined
        self.format = format
    }

    // MARK: Views

    /// The nonce the box was sealed with.
    package var nonce: XChaCha20Poly1305.Nonce {
        XChaCha20Poly1305.Nonce(validated: combined[nonceRange])
    }

    /// The encrypted bytes, as long as the plaintext.
    package var ciphertext: ArraySlice<UInt8> {
        combined[nonceRange.upperBound..<(combined.count - XChaCha20Poly1305.tagByteCount)]
    }

    /// The 16-byte authentication tag.
    package var tag: ArraySlice<UInt8> {
        combined[(combined.count - XChaCha20Poly1305.tagByteCount)...]
    }

    /// The number of bytes ``open(using:authenticating:)`` returns.
    package var plaintextByteCount: Int { ciphertext.count }

    private var nonceRange: Range<Int> { format.byteCount..<(format.byteCount + XChaCha20Poly1305.nonceByteCount) }

    // MARK: Sealing

    /// Seals `plaintext` under `key` into a box of `format`, authenticating `additionalData`.
    package static func seal(
        _ plaintext: [UInt8],
        format: Format,
        using key: SymmetricKey,
        nonce: XChaCha20Poly1305.Nonce = .random(),
        authenticating additionalData: [UInt8]
    ) -> SealedBox {
        plaintext.withUnsafeBytes { plaintext in
            seal(plaintext, format: format, using: key, nonce: nonce, authenticating: additionalData)
        }
    }

    /// Seals the bytes of `secret` (a key kept in guarded memory) straight from that memory:
    /// no ordinary array ever holds them.
    package static func seal(
        _ secret: SymmetricKey,
        format: Format,
        using key: SymmetricKey,
        nonce: XChaCha20Poly1305.Nonce = .random(),
        authenticating additionalData: [UInt8]
    ) -> SealedBox {
        secret.withUnsafeBytes { plaintext in
            seal(plaintext, format: format, using: key, nonce: nonce, authenticating: additionalData)
        }
    }

    private static func seal(
        _ plaintext: UnsafeRawBufferPointer,
        format: Format,
        using key: SymmetricKey,
        nonce: XChaCha20Poly1305.Nonce,
        authenticating additionalData: [UInt8]
    ) -> SealedBox {
        let header = format.bytes + nonce.bytes
        var combined = [UInt8](repeating: 0, count: header.count + plaintext.count + XChaCha20Poly1305.tagByteCount)
        combined.withUnsafeMutableBytes { output in
            header.withUnsafeBytes { output.copyMemory(from: $0) }
            XChaCha20Poly1305.seal(
                plaintext, into: UnsafeMutableRawBufferPointer(rebasing: output[header.count...]),
                using: key, nonce: nonce, authenticating: additionalData)
        }
        return SealedBox(validated: combined, format: format)
    }

    // MARK: Opening

    /// The plaintext, if the tag verifies over the ciphertext and exactly the `additionalData`
    /// given when it was sealed. A caller holding secret bytes in the result zeroes them when
    /// done (or, for a key, uses ``openKey(using:authenticating:)``).
    /// - Throws: ``CryptoFailure/authenticationFailed``: wrong key, wrong additional data, or
    ///   altered bytes.
    package func open(using key: SymmetricKey, authenticating additionalData: [UInt8]) throws(CryptoFailure) -> [UInt8] {
        var plaintext = [UInt8](repeating: 0, count: plaintextByteCount)
        // Array's closures rethrow untyped errors: the typed failure is carried out by hand.
        let failure = plaintext.withUnsafeMutableBytes { output in
            Result { () throws(CryptoFailure) in try open(into: output, using: key, authenticating: additionalData) }
        }
        try failure.get()
        return plaintext
    }

    /// The 32-byte key sealed in the box, opened straight into guarded memory: the key never
    /// exists in an ordinary array.
    /// - Throws: ``CryptoFailure/invalidKeySize(_:)`` when the box does not hold 32 bytes (checked
    ///   before opening), ``CryptoFailure/authenticationFailed`` as ``open(using:authenticating:)``.
    package func openKey(using key: SymmetricKey, authenticating additionalData: [UInt8]) throws(CryptoFailure) -> SymmetricKey {
        guard plaintextByteCount == SymmetricKey.byteCount else { throw .invalidKeySize(plaintextByteCount) }
        var opened: Result<Void, CryptoFailure> = .success(())
        let storage = SecureBytes(count: SymmetricKey.byteCount) { output in
            opened = Result { () throws(CryptoFailure) in try open(into: output, using: key, authenticating: additionalData) }
        }
        try opened.get()
        return SymmetricKey(storage: storage)
    }

    private func open(into output: UnsafeMutableRawBufferPointer, using key: SymmetricKey, authenticating additionalData: [UInt8]) throws(CryptoFailure) {
        let start = nonceRange.upperBound
        let nonce = nonce
        let opened = combined.withUnsafeBytes { bytes in
            Result { () throws(CryptoFailure) in
                try XChaCha20Poly1305.open(
                    UnsafeRawBufferPointer(rebasing: bytes[start...]), into: output,
                    using: key, nonce: nonce, authenticating: additionalData)
            }
        }
        try opened.get()
    }
}
