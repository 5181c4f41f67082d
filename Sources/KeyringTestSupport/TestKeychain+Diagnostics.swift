#if !canImport(Darwin)
import Foundation
import Keyring

extension TestKeychain {
    /// Why the most recent failing SecItem call in this process failed: the group, key or
    /// limit involved, which `SecCopyErrorMessageString` cannot say. The same as
    /// `ProcessKeyring.lastError`, offered here so a test file needs no `import Keyring`
    /// (whose native type names, such as `Accessibility`, may clash with a wrapper's own).
    ///
    /// ```swift
    /// XCTAssertEqual(status, errSecSuccess, TestKeychain.lastError?.reason ?? "")
    /// ```
    public static var lastError: KeyringError? { ProcessKeyring.lastError }
}
#endif
