import Foundation
import Security
import XCTest

/// SecCertificate, SecIdentity and their functions, on certificates made for these tests with
/// Python's `cryptography` (self-signed; subject O=GroupVault Tests, CN=GroupVault Test EC/RSA;
/// a subject key identifier extension computed by RFC 5280's method 1).
final class SecCertificateTests: XCTestCase {
    static let ecCertificate = Data(base64Encoded: "MIIBhjCCAS2gAwIBAgIIEjRWeJCrze8wCgYIKoZIzj0EAwIwODEZMBcGA1UECgwQR3JvdXBWYXVsdCBUZXN0czEbMBkGA1UEAwwSR3JvdXBWYXVsdCBUZXN0IEVDMB4XDTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowODEZMBcGA1UECgwQR3JvdXBWYXVsdCBUZXN0czEbMBkGA1UEAwwSR3JvdXBWYXVsdCBUZXN0IEVDMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEtNxNt3UWaMEADrELFBUXlGZ0TdE8kTZZjoQNrZWpU4RTtci0O3kxd088L+ijbGoGtYhMs1pCYJbrEHx3GxWOyqMhMB8wHQYDVR0OBBYEFM4R+Nehfg6mGQrLzOGRBJoiwTinMAoGCCqGSM49BAMCA0cAMEQCIGyQqFSVM/jr01zDKuKzfkJqERL3FiGtyv6a7lo4OR5rAiBMj/cBMftabOtw/eolDOLnRmVMH6dgcOEPqCPx/TGEZQ==")!
    /// The EC certificate's private key, in Apple's X9.63 representation.
    static let ecPrivateKey = Data(base64Encoded: "BLTcTbd1FmjBAA6xCxQVF5RmdE3RPJE2WY6EDa2VqVOEU7XItDt5MXdPPC/oo2xqBrWITLNaQmCW6xB8dxsVjsrARfPlbb7ORp21tuS9YbrDHIRBXhZMncTOMUSty8JGsw==")!
    static let ecSubjectKeyID = SecKeyFixtures.hex("ce11f8d7a17e0ea6190acbcce191049a22c138a7")
    static let rsaCertificate = Data(base64Encoded: "MIIDDjCCAfagAwIBAgIBKjANBgkqhkiG9w0BAQsFADA5MRkwFwYDVQQKDBBHcm91cFZhdWx0IFRlc3RzMRwwGgYDVQQDDBNHcm91cFZhdWx0IFRlc3QgUlNBMB4XDTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowOTEZMBcGA1UECgwQR3JvdXBWYXVsdCBUZXN0czEcMBoGA1UEAwwTR3JvdXBWYXVsdCBUZXN0IFJTQTCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAMwk6kDSBDydMC/PYYh/OYwAmRlGvivGi5L9cJSOgwmfSfr4bFlpje+yzkLHSf9CsCpaPiUhMM1QkbzDCFfQ7crRvCnsFEM7TlfLzDFHP7uOejtZk/wW5jJAwARH/N1R3KVgxPWlXsU/kvyzSFEZBfTLEseQ3hYNn2Gm9V1c5XxA2TxaAnpU+sXR6HE4D5om/2xiDBpr3SAafRfTdDd5ymCuucTg1wTZiBlmvvQZTC7lnFN5WJ/KLyu7e/eo695LR9KcvoxrGqTy5CysiUT0VxloKljdR+QBO3+2asdY9sBCu24LgiXGCmQaq5FW7CDltM9Qr3HEhxBfBoKqNmKGPgUCAwEAAaMhMB8wHQYDVR0OBBYEFGT4VQQ/eEDBDVsa2qaQejnfnGH8MA0GCSqGSIb3DQEBCwUAA4IBAQDAycUUJBkOTgC9w/jPHYkAUin15y30mZU8tJb7U19UgJfiY6iO6wyz9fANgyo0tJs1XnNcotFD6fiNBQvt4aXb2nUktCwij9yPjyA69ihpqE73OwIAbld6KVv69ZtIVHNtNV8O7ZI2fxZB6bfjjAXhzy6wBMLBeKBVX1UOqH6qM7wDna8PzccesYV1R5tdOXTJXN7ZHQVp23nutM9RXg7pJxJ36S8eiC94lWCfR75RCLN1eL7e4jFzhm0Q7mNpI6l/d7pCC+HGmG7+c1WILqEQZyuLarskvniE8MBIvl6w/b8oN/n5frXBwjb3mdTxQEBjenWgxNNIygVdCcnarh75")!
    static let rsaSubjectKeyID = SecKeyFixtures.hex("64f855043f7840c10d5b1adaa6907a39df9c61fc")

    func testCertificateDataRoundTripsExactly() throws {
        let certificate = try XCTUnwrap(SecCertificateCreateWithData(nil, Self.ecCertificate as CFData))
        XCTAssertEqual(SecCertificateCopyData(certificate) as Data, Self.ecCertificate)
        XCTAssertEqual(certificate, SecCertificateCreateWithData(nil, Self.ecCertificate as CFData))
    }

    func testDataThatIsNotOneDERCertificateGivesNil() {
        let pem = Data("-----BEGIN CERTIFICATE-----\n\(Self.ecCertificate.base64EncodedString())\n-----END CERTIFICATE-----\n".utf8)
        for bad in [Data(), Data("hello".utf8), pem, Self.ecCertificate.dropLast(), Self.ecCertificate + Data([0]),
                    Data(repeating: 0x30, count: 64)] {
            XCTAssertNil(SecCertificateCreateWithData(nil, bad as CFData), "\(bad.count) bytes")
        }
    }

    func testSubjectSummaryIsTheCommonName() throws {
        let certificate = try XCTUnwrap(SecCertificateCreateWithData(nil, Self.rsaCertificate as CFData))
        XCTAssertEqual(SecCertificateCopySubjectSummary(certificate) as String?, "GroupVault Test RSA")
        var names: CFArray?
        XCTAssertEqual(SecCertificateCopyCommonNames(certificate, &names), errSecSuccess)
        XCTAssertEqual(names as? [String], ["GroupVault Test RSA"])
    }

    func testSerialNumberDataIsTheIntegersContentBytes() throws {
        let certificate = try XCTUnwrap(SecCertificateCreateWithData(nil, Self.ecCertificate as CFData))
        XCTAssertEqual(SecCertificateCopySerialNumberData(certificate, nil) as Data?, SecKeyFixtures.hex("1234567890abcdef"))
    }

    /// RFC 5280's key identifier (SHA-1 of the subjectPublicKey bits) is exactly what Apple
    /// hashes for kSecAttrApplicationLabel: the X9.63 point for EC, the PKCS#1 key for RSA.
    func testCertificateKeysApplicationLabelEqualsTheSubjectKeyIdentifier() throws {
        for (der, keyID, type) in [(Self.ecCertificate, Self.ecSubjectKeyID, kSecAttrKeyTypeECSECPrimeRandom),
                                   (Self.rsaCertificate, Self.rsaSubjectKeyID, kSecAttrKeyTypeRSA)] {
            let certificate = try XCTUnwrap(SecCertificateCreateWithData(nil, der as CFData))
            let key = try XCTUnwrap(SecCertificateCopyKey(certificate))
            let attributes = try XCTUnwrap(SecKeyCopyAttributes(key) as? [String: Any])
            XCTAssertEqual(attributes[kSecAttrApplicationLabel as String] as? Data, keyID)
            XCTAssertEqual(attributes[kSecAttrKeyType as String] as? String, type as String)
            XCTAssertEqual(attributes[kSecAttrKeyClass as String] as? String, kSecAttrKeyClassPublic as String)
        }
    }

    func testCertificatesKeyVerifiesWhatItsPrivateKeySigned() throws {
        let certificate = try XCTUnwrap(SecCertificateCreateWithData(nil, Self.ecCertificate as CFData))
        let privateKey = try SecKeyFixtures.key(Self.ecPrivateKey, type: kSecAttrKeyTypeECSECPrimeRandom, keyClass: kSecAttrKeyClassPrivate)
        let signature = try SecKeyFixtures.sign(privateKey, .ecdsaSignatureMessageX962SHA256, SecKeyFixtures.message)
        let publicKey = try XCTUnwrap(SecCertificateCopyKey(certificate))
        XCTAssertTrue(SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, SecKeyFixtures.message as CFData, signature as CFData, nil))
        XCTAssertEqual(publicKey, SecKeyCopyPublicKey(privateKey))
    }

    func testNormalizedSequencesAreTheNamesDER() throws {
        let certificate = try XCTUnwrap(SecCertificateCreateWithData(nil, Self.ecCertificate as CFData))
        let issuer = try XCTUnwrap(SecCertificateCopyNormalizedIssuerSequence(certificate) as Data?)
        let subject = try XCTUnwrap(SecCertificateCopyNormalizedSubjectSequence(certificate) as Data?)
        XCTAssertEqual(issuer, subject, "self-signed")
        XCTAssertEqual(issuer.first, 0x30, "a DER SEQUENCE")
        XCTAssertNotNil(Self.ecCertificate.range(of: issuer), "the Name as encoded in the certificate")
    }
}
