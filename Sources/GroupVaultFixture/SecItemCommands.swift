import FixtureSupport
import Foundation
import Keyring
import SealedStorage

#if canImport(Darwin) || !canImport(Security)
/// On Apple platforms SecItem is the real framework, which these commands do not exercise; a
/// core-scope build (Package.swift, `GROUPVAULT_PACKAGE_SCOPE`) has no Security module.
let secItemCommands: [String: FixtureCommand] = [:]
#else
import Security

/// SecItem commands for multi-process tests: each acts as the process identity from the
/// `GROUPVAULT_*` environment through Apple's API, the way an app extension would, and prints
/// `key value` lines for the test to check.
let secItemCommands: [String: FixtureCommand] = [
    // secitem-copy <service> <account> <access group | ->
    // Prints `status <OSStatus>` and, on success, `data-blake2b <hex digest>`: a digest, so
    // the secret itself never reaches the output.
    "secitem-copy": { arguments in
        guard arguments.count == 3 else { return usage("secitem-copy <service> <account> <access group | ->") }
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: arguments[0],
            kSecAttrAccount as String: arguments[1],
            kSecReturnData as String: true,
        ]
        if arguments[2] != "-" { query[kSecAttrAccessGroup as String] = arguments[2] }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        print("status \(status)")
        if let data = result as? Data { print("data-blake2b \(hex(Digest.blake2b256(Array(data))))") }
        if status != errSecSuccess, let reason = ProcessKeyring.lastError?.reason { printError(reason) }
        return 0
    },
    // bundle-identifier
    // Prints `bundle-identifier <Bundle.main.bundleIdentifier or nil>`: proves the README's
    // recipe (an Info.plist with CFBundleIdentifier beside the binary) for wrappers whose
    // default service is the bundle identifier.
    "bundle-identifier": { _ in
        print("bundle-identifier \(Bundle.main.bundleIdentifier ?? "nil")")
        return 0
    },
    // secitem-container <application group>
    // Prints `container nil` or `container <path>` and `exists true|false`.
    "secitem-container": { arguments in
        guard arguments.count == 1 else { return usage("secitem-container <application group>") }
        guard let url = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: arguments[0]) else {
            print("container nil")
            return 0
        }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
        print("container \(url.path)")
        print("exists \(exists)")
        return 0
    },
    // secitem-read-state <access group> <service> <account> <application group> <file name>
    // The widget side of the shared-state flow: reads the group key with SecItemCopyMatching,
    // the sealed file from the group container, opens it and prints `state <plaintext>`.
    // File format (shared with SecItemTests' SharedStateStore): nonce (24 bytes) followed by
    // XChaCha20-Poly1305 ciphertext and tag, with the file name as additional data.
    "secitem-read-state": { arguments in
        guard arguments.count == 5 else {
            return usage("secitem-read-state <access group> <service> <account> <application group> <file name>")
        }
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrAccessGroup as String: arguments[0],
            kSecAttrService as String: arguments[1],
            kSecAttrAccount as String: arguments[2],
            kSecReturnData as String: true,
            kSecMatchLimit as String: kSecMatchLimitOne,
        ]
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        guard status == errSecSuccess, let keyBytes = result as? Data else {
            print("status \(status)")
            return 1
        }
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: arguments[3]) else {
            print("container nil")
            return 1
        }
        do {
            let sealed = try Data(contentsOf: container.appendingPathComponent(arguments[4]))
            guard sealed.count >= XChaCha20Poly1305.nonceByteCount else { throw CryptoFailure.ciphertextTooShort(sealed.count) }
            let key = try SymmetricKey(bytes: keyBytes)
            let nonce = try XChaCha20Poly1305.Nonce(bytes: sealed.prefix(XChaCha20Poly1305.nonceByteCount))
            let plaintext = try XChaCha20Poly1305.open(
                Array(sealed.dropFirst(XChaCha20Poly1305.nonceByteCount)), using: key, nonce: nonce,
                authenticating: Array(arguments[4].utf8))
            print("state \(String(decoding: plaintext, as: UTF8.self))")
            return 0
        } catch {
            printError("reading \(arguments[4]) failed: \(error)")
            return 1
        }
    },
]

private func usage(_ text: String) -> Int32 {
    printError("usage: GroupVaultFixture \(text)")
    return 64
}

private func hex(_ bytes: [UInt8]) -> String {
    Hex.lowercase(bytes)
}
#endif
