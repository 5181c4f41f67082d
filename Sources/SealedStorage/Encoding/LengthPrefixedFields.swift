/// Appending fields framed by their length: a big-endian `UInt32` byte count, then the bytes.
///
/// This is the framing of every keyed-hash and additional-data message the keyring and the
/// Vault's ledger build (item rows' additional data and lookup hashes, a primary key's class
/// attributes, keyset rows' additional data, ledger row tags; docs/FORMAT.md). Framing each
/// field by its length is what makes the message unambiguous: ("ab", "c") and ("a", "bc")
/// differ. Why one definition: the same three lines were written in five places, and a message
/// framed differently in one of them would still hash, just never match.
///
/// Callers build a message in one buffer, sized once (a warm lookup builds about twenty
/// fields): `@inlinable`, so appending stays as cheap as writing it out by hand in the caller's
/// module. The formats are pinned byte for byte by their own tests (`ItemRowLayoutTests`,
/// `LengthPrefixedFieldsTests`, the ledger's and keyset's fixture homes).
extension Array where Element == UInt8 {
    /// Appends `field`'s byte count as a big-endian `UInt32`, then its bytes.
    /// - Precondition: `field` has fewer than 2³² bytes (every caller's fields are bounded far
    ///   below: attributes by ItemLimits, names by their validation).
    @inlinable
    package mutating func appendLengthPrefixed<Field: Collection<UInt8>>(_ field: Field) {
        appendBigEndian(UInt32(field.count))
        append(contentsOf: field)
    }

    /// ``appendLengthPrefixed(_:)`` of `text`'s UTF-8, through its contiguous storage: appending
    /// a `String.UTF8View` as a generic collection cost 300 instructions a field.
    @inlinable
    package mutating func appendLengthPrefixed(_ text: String) {
        var text = text
        text.withUTF8 { appendLengthPrefixed($0) }
    }

    /// Appends `value`'s bytes, most significant first.
    @inlinable
    package mutating func appendBigEndian<Value: FixedWidthInteger>(_ value: Value) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
