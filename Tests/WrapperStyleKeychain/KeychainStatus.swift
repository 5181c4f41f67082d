import Foundation

// Written as Apple code often is: only Foundation imported, Security names used anyway
// (they arrive through SecurityReexport.swift on Linux, through Foundation on Apple platforms).

/// A failed keychain call: its status and Apple's message for it.
public struct KeychainStatus: Error, Equatable, CustomStringConvertible {
    /// The `OSStatus` the call returned.
    public let status: OSStatus

    /// Wraps `status`.
    public init(_ status: OSStatus) { self.status = status }

    /// Whether the keychain had no such item.
    public var isNotFound: Bool { status == errSecItemNotFound }

    /// Apple's message for the status, e.g. "The specified item could not be found in the keychain."
    public var description: String {
        SecCopyErrorMessageString(status, nil) as String? ?? "OSStatus \(status)"
    }

    /// Throws unless `status` is `noErr`.
    static func check(_ status: OSStatus) throws(KeychainStatus) {
        guard status == noErr else { throw KeychainStatus(status) }
    }
}
