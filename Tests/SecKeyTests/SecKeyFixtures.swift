import Crypto
import Foundation
import Security
import XCTest

/// The arrangement the SecKey tests share: key creation and the SecKey calls, throwing the
/// `CFError` Apple code would get.
enum SecKeyFixtures {
    static let message = Data("GroupVault SecKey test message".utf8)

    struct Failure: Error, CustomStringConvertible {
        let error: NSError?
        var status: Int { error?.code ?? 0 }
        var description: String { "SecKey call failed: \(error.map { "\($0.domain) \($0.code) \($0.localizedDescription)" } ?? "no error")" }
    }

    static func call<T>(_ body: (UnsafeMutablePointer<Unmanaged<CFError>?>) -> T?) throws -> T {
        var error: Unmanaged<CFError>?
        guard let value = body(&error) else { throw Failure(error: error?.takeRetainedValue()) }
        return value
    }

    static func randomKey(type: CFString, bits: Int, extra: [String: Any] = [:]) throws -> SecKey {
        var parameters: [String: Any] = [kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits]
        parameters.merge(extra) { $1 }
        return try call { SecKeyCreateRandomKey(parameters as CFDictionary, $0) }
    }

    static func key(_ data: Data, type: CFString, keyClass: CFString) throws -> SecKey {
        let attributes: [String: Any] = [kSecAttrKeyType as String: type, kSecAttrKeyClass as String: keyClass]
        return try call { SecKeyCreateWithData(data as CFData, attributes as CFDictionary, $0) }
    }

    static func sign(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data) throws -> Data {
        try call { SecKeyCreateSignature(key, algorithm, data as CFData, $0) } as Data
    }

    static func encrypt(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data) throws -> Data {
        try call { SecKeyCreateEncryptedData(key, algorithm, data as CFData, $0) } as Data
    }

    static func decrypt(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data) throws -> Data {
        try call { SecKeyCreateDecryptedData(key, algorithm, data as CFData, $0) } as Data
    }

    static func external(_ key: SecKey) throws -> Data {
        try call { SecKeyCopyExternalRepresentation(key, $0) } as Data
    }

    /// The OSStatus a failing SecKey call reports (0 when it succeeds).
    static func status<T>(_ body: (UnsafeMutablePointer<Unmanaged<CFError>?>) -> T?) -> Int {
        do { _ = try call(body); return 0 } catch let failure as Failure { return failure.status } catch { return 0 }
    }

    /// The digest a `...Message...` algorithm signs, by the hash its identifier names.
    static func digest(_ message: Data, for algorithm: SecKeyAlgorithm) -> Data {
        let name = "\(algorithm)"
        if name.contains("SHA512") { return Data(SHA512.hash(data: message)) }
        if name.contains("SHA384") { return Data(SHA384.hash(data: message)) }
        if name.contains("SHA1") { return Data(Insecure.SHA1.hash(data: message)) }
        return Data(SHA256.hash(data: message))
    }

    static func sha1(_ data: Data) -> Data { Data(Insecure.SHA1.hash(data: data)) }

    static func hex(_ string: String) -> Data {
        let characters = Array(string.filter { !$0.isWhitespace })
        return Data(stride(from: 0, to: characters.count, by: 2).map { UInt8(String(characters[$0...$0 + 1]), radix: 16)! })
    }
}
