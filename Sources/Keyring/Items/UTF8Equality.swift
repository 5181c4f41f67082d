import SealedStorage

extension String {
    /// Whether the two strings are the same bytes of UTF-8: how the keychain compares text
    /// (`==` would take a precomposed "é" for its decomposed form, whose stored bytes and
    /// keyed hashes differ). One `memcmp` where both are contiguous, as native strings are.
    func hasSameUTF8(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let compared = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in
                haveSameBytes(UnsafeRawBufferPointer(mine), UnsafeRawBufferPointer(theirs))
            }
        }
        return (compared ?? nil) ?? utf8.elementsEqual(other.utf8)
    }
}
