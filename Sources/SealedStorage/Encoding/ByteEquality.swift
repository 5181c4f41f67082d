#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the two buffers hold the same bytes: one `memcmp`, where a generic `elementsEqual`
/// steps byte by byte through two iterators (the keychain and the Vault compare text, rows and
/// blobs this way on every warm call). Not constant-time: for values that are not secret, or
/// whose equality an attacker already knows (``constantTimeEquals(_:_:)`` is for tags).
/// Public and inlinable, as ``ExactBytesMemo`` is, so that its callers inline it.
@inlinable
public func haveSameBytes(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> Bool {
    guard first.count == second.count else { return false }
    guard let firstBase = first.baseAddress, let secondBase = second.baseAddress else { return first.isEmpty }
    return memcmp(firstBase, secondBase, first.count) == 0
}
