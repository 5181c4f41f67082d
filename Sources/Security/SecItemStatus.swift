#if !canImport(Darwin)
import Foundation
import Keyring

// The result codes themselves are in SecBaseStatusCodes.swift, one constant per SecBase.h entry.

/// No error: MacTypes.h's `noErr`, which Apple code gets with `import Security` and compares
/// SecItem results with (`status == noErr`). Value: `0`, the same as `errSecSuccess`.
public let noErr: OSStatus = 0

/// The human-readable message for a result code, as Apple's function gives it.
///
/// ```swift
/// let status = SecItemAdd(query as CFDictionary, nil)
/// if status != errSecSuccess {
///     print(SecCopyErrorMessageString(status, nil) as String? ?? "OSStatus \(status)")
/// }
/// ```
///
/// The message is the generic one for the code; why *this* call failed (which group, which
/// key, which limit) is in `ProcessKeyring.lastError` (or `TestKeychain.lastError` in tests).
/// - Parameters:
///   - status: Any `OSStatus`; codes SecBase.h declares without a message, and unknown
///     codes, get `"OSStatus <n>"`.
///   - reserved: Must be `nil`, as on Apple platforms.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    NSString(string: SecBaseStatusTable.entries[status]?.message ?? "OSStatus \(status)")
}
#endif
