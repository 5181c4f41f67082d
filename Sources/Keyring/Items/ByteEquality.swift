#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the two buffers hold the same bytes: one `memcmp`, where a generic `elementsEqual`
/// steps byte by byte through two iterators (the keychain compares text, rows and names this
/// way on every lookup). Not constant-time: for values that are not secret, or whose equality
/// an attacker already knows (`constantTimeEquals` in SealedStorage is for tags).
func haveSameBytes(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> Bool {
    guard first.count == second.count else { return false }
    guard let firstBase = first.baseAddress, let secondBase = second.baseAddress else { return first.isEmpty }
    return memcmp(firstBase, secondBase, first.count) == 0
}

extension String {
    /// Whether the two strings are the same bytes of UTF-8: how the keychain compares text
    /// (`==` would take a precomposed "é" for its decomposed form, whose stored bytes and
    /// keyed hashes differ).
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
