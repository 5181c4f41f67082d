#if !canImport(Darwin)
import Foundation
import Keyring
import SealedStorage

/// The random number generator argument of ``SecRandomCopyBytes(_:_:_:)``. Only the default
/// generator exists.
public final class SecRandom: Sendable {
    private init() {}
}

/// The default generator: `nil`, as on Apple platforms.
public let kSecRandomDefault: SecRandom? = nil

/// Fills `bytes` with `count` cryptographically secure random bytes (libsodium's CSPRNG), as
/// app code generating a key does:
///
/// ```swift
/// var key = Data(count: 32)
/// let status = key.withUnsafeMutableBytes { SecRandomCopyBytes(kSecRandomDefault, 32, $0.baseAddress!) }
/// ```
/// - Returns: `errSecSuccess`; `errSecParam` for a negative count.
public func SecRandomCopyBytes(_ rnd: SecRandom?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
    guard count >= 0 else { return errSecParam }
    guard count > 0 else { return errSecSuccess }
    var random = SecureRandom.bytes(count: count)
    random.withUnsafeMutableBytes { buffer in
        guard let source = buffer.baseAddress else { return }
        bytes.copyMemory(from: source, byteCount: count)
        // The bytes are usually a key: leave no copy behind in freed memory.
        explicit_bzero(source, buffer.count)
    }
    return errSecSuccess
}
#endif
