/// Why a CBOR body was refused: what was wrong, at which byte, and under which keys. Like every
/// reason the channel gives, it names types, sizes and places, never a value of the body.
///
/// ``MessageCBORDecoder`` hands it on as the underlying error of a `DecodingError`, so callers
/// that handle `DecodingError` (as `Codable` code does) see the usual kinds.
struct CBORReadError: Error, Sendable, CustomStringConvertible {
    /// What the reader refused, e.g. "a tag (major type 6), which the subset does not allow".
    var reason: String
    /// The offset in the body of the item's first byte (or where the body ended too early).
    var offset: Int
    /// The map keys and array indices from the top of the body to the refused item.
    var path: [BodyCodingKey] = []

    /// `reason` at `offset`.
    init(_ reason: String, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// The same error, one level further out: `key` is where it happened in the enclosing item.
    func inside(_ key: BodyCodingKey) -> CBORReadError {
        var error = self
        error.path.insert(key, at: 0)
        return error
    }

    /// `reason at byte offset`.
    var description: String { "\(reason) at byte \(offset)" }
}
