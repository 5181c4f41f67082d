import Foundation
import Keyring
import KeyringTestSupport
import Security
import XCTest

/// `kSecAttrIsPermanent` stores the private key through the public SecItemAdd, as Apple code would.
final class PermanentKeyTests: XCTestCase {
    private let tag = Data("com.example.permanent".utf8)

    private func parameters(permanent: Bool) -> [String: Any] {
        [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
         kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: permanent, kSecAttrApplicationTag as String: tag]]
    }

    /// Whatever SecItemAdd answers for the key item (here: the keyring failing with errSecIO),
    /// SecKeyCreateRandomKey gives no key and that same status.
    func testAFailedSecItemAddGivesNoKeyAndSecItemAddsStatus() throws {
        let keychain = try TestKeychain()
        defer { keychain.restore() }
        let key = try SecKeyFixtures.call { SecKeyCreateRandomKey(parameters(permanent: false) as CFDictionary, $0) }
        keychain.failNextOperation(with: .ioError)
        let direct = SecItemAdd([kSecClass as String: kSecClassKey, kSecValueRef as String: key,
                                 kSecAttrApplicationTag as String: tag] as CFDictionary, nil)
        XCTAssertEqual(direct, errSecIO)

        keychain.failNextOperation(with: .ioError)
        var error: Unmanaged<CFError>?
        XCTAssertNil(SecKeyCreateRandomKey(parameters(permanent: true) as CFDictionary, &error))
        let failure = try XCTUnwrap(error?.takeRetainedValue())
        XCTAssertEqual(failure.domain, NSOSStatusErrorDomain)
        XCTAssertEqual(failure.code, Int(direct))
    }
}
