import CSodium

/// Whether `lhs` and `rhs` hold the same bytes, compared in constant time (`sodium_memcmp`):
/// for authentication tags, so the time a comparison takes does not reveal how much of a forged
/// tag was right. Lengths are not secret; bytes of different lengths are unequal at once.
///
/// A loop of our own over `zip(lhs, rhs)` would do the same, but a new process instantiating
/// `Zip2Sequence` looks its conformances up among every loaded library's (about 0.8 million
/// instructions before the first tag is checked).
package func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    guard !lhs.isEmpty else { return true }
    return lhs.withUnsafeBytes { left in
        rhs.withUnsafeBytes { right in sodium_memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0 }
    }
}
