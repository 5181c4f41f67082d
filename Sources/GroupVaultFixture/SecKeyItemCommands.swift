import FixtureSupport
import Foundation
import Keyring
import SealedStorage

#if canImport(Darwin) || !canImport(Security)
/// On Apple platforms SecKey is the real framework, which these commands do not exercise; a
/// core-scope build (Package.swift, `GROUPVAULT_PACKAGE_SCOPE`) has no Security module.
let secKeyItemCommands: [String: FixtureCommand] = [:]
#else
import Security

/// Key items across processes: one process (an app) creates a permanent key through
/// `SecKeyCreateRandomKey`, others (its widget, a stranger) find it with `SecItemCopyMatching`
/// and sign with it, each as the identity of the `GROUPVAULT_*` environment.
let secKeyItemCommands: [String: FixtureCommand] = [
    // seckey-create <application tag> <access group> <software | enclave>
    // Creates a permanent P-256 private key and prints `public <hex X9.63>`. For an enclave key
    // also `private <hex X9.63>`, read through the package-only path the signing code uses: a
    // test-only disclosure, so the test can prove those bytes are in no file of the home.
    "seckey-create": { arguments in
        guard arguments.count == 3, ["software", "enclave"].contains(arguments[2]) else {
            return usage("seckey-create <application tag> <access group> <software | enclave>")
        }
        var parameters: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecAttrKeySizeInBits as String: 256,
            kSecPrivateKeyAttrs as String: [
                kSecAttrIsPermanent as String: true,
                kSecAttrApplicationTag as String: Data(arguments[0].utf8),
                kSecAttrAccessGroup as String: arguments[1],
            ] as [String: Any],
        ]
        if arguments[2] == "enclave" { parameters[kSecAttrTokenID as String] = kSecAttrTokenIDSecureEnclave }
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error),
              let publicKey = SecKeyCopyPublicKey(key),
              let publicBytes = SecKeyCopyExternalRepresentation(publicKey, nil) as Data? else {
            printError("SecKeyCreateRandomKey failed: \(error.map { "\($0.takeRetainedValue())" } ?? "no error") \(ProcessKeyring.lastError?.reason ?? "")")
            return 1
        }
        print("public \(Hex.lowercase(Array(publicBytes)))")
        if arguments[2] == "enclave" {
            do {
                var query = ItemQuery(.key, accessGroup: GroupIdentifier(rawValue: arguments[1]))
                query.key.applicationTag = Data(arguments[0].utf8)
                guard let stored = try ProcessKeyring.current().itemsForKeyUse(matching: query, limit: .one).first else {
                    printError("the enclave key was not stored")
                    return 1
                }
                print("private \(Hex.lowercase(Array(stored.secret)))")
            } catch {
                printError("reading the enclave key failed: \(error)")
                return 1
            }
        }
        return 0
    },
    // seckey-sign <application tag> <message>
    // Finds the private key by tag in every group of the process and signs the message (ECDSA
    // X9.62, SHA-256). Prints `status <OSStatus>` and, on success, `signature <hex DER>`.
    "seckey-sign": { arguments in
        guard arguments.count == 2 else { return usage("seckey-sign <application tag> <message>") }
        let query: [String: Any] = [
            kSecClass as String: kSecClassKey,
            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
            kSecAttrApplicationTag as String: Data(arguments[0].utf8),
            kSecReturnRef as String: true,
        ]
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        print("status \(status)")
        guard status == errSecSuccess else {
            if let reason = ProcessKeyring.lastError?.reason { printError(reason) }
            return 0
        }
        guard let key = result as! SecKey?,
              let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, Data(arguments[1].utf8) as CFData, nil) as Data? else {
            printError("the key did not sign")
            return 1
        }
        print("signature \(Hex.lowercase(Array(signature)))")
        return 0
    },
]

private func usage(_ text: String) -> Int32 {
    printError("usage: GroupVaultFixture \(text)")
    return 64
}
#endif
