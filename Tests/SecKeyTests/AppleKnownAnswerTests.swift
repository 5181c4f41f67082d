import Crypto
import Foundation
import Security
import XCTest

/// Signatures and ciphertexts produced by Security.framework on Apple platforms verify and
/// decrypt here.
///
/// ECIES:
/// The vectors are published by Jedda Wignall's Go module for Apple's ECIES, which states they
/// were "created with SecKeyAlgorithms using Swift" (SecKeyCreateEncryptedData on an Apple
/// device), each encrypting its own test name:
/// https://github.com/jedda/ECIES/blob/main/ecies_test.go (TestExternalDecryptSuccess).
/// Keys are as published there: SEC1 ECPrivateKey DER in base64 (converted to Apple's X9.63
/// representation with swift-crypto below; the line break inside two of the published keys is
/// removed); ciphertexts are base64.
final class AppleKnownAnswerTests: XCTestCase {
    private struct Vector {
        let name: String
        let algorithm: SecKeyAlgorithm
        let key: String
        let ciphertext: String
    }

    private let vectors = [
        Vector(
            name: "P256-SHA256-VIV", algorithm: .eciesEncryptionCofactorVariableIVX963SHA256AESGCM,
            key: "MHcCAQEEIHGhxnpu3kG/nW5ozDZJ+TTFQvL6MynCcQWD6jHV4p0UoAoGCCqGSM49AwEHoUQDQgAEzgFYw3Rqc72IIYHV7JH6M245n/nLnxyre1A7sc5nOt31ZyfJQLXGs4dY0cggne28ueXHID5lKz1JNChY49NHYg==",
            ciphertext: "BI6sBCGyf916GQSV3DHOvmFxOmzbV9pq08wcOdKaepP2/Qtepj9M71dYkzXf6OqIstDyyVIxfnAMfUpxZzoCHDbalYRzzwhqHwg7K6RNl1F29PVdLNtJH498yJSfloW/"),
        Vector(
            name: "P384-SHA384-VIV", algorithm: .eciesEncryptionCofactorVariableIVX963SHA384AESGCM,
            key: "MIGkAgEBBDC5Lt6wBRiiEC2O71i3lv8Jtgg+YP4Y3gCj7B7nOtdQO/5PQPRjpFPJ3ft0yjbzHEagBwYFK4EEACKhZANiAAToVnztZKN1KVhot+MoN3CiPDZ0PoCDXrdP1uHQ61nz4XVrNdxgxyNUJC6cd0gsbujme66wxrq28zqWYBKvrFtIlS4W+NkuyCi5nABkHno7alAWv/fD7aQ8A3ZmWZohsaU=",
            ciphertext: "BM45TREbxELfwpTVBmltz+sB3vhkM85m/yiAsE8JSNmXVOeeUGzmxP5Z2jegApPxtOS8ilfhTN/m2XkOoJWGw3MKuekq5V5PcdvAi5xKcoOEynkS7uAKS3nhBH/+g+9/iNoTcRSrEpbgm8dOCGe+VRQ7hK8vI0ZRw74kernlNDw="),
        Vector(
            name: "P384-SHA384-0IV", algorithm: .eciesEncryptionCofactorX963SHA384AESGCM,
            key: "MIGkAgEBBDCveSReIMZa6hbWVgmESfu/jMpEqIldBHcx4nQ46zxJ+hvm4lnesKrn0P0BkFYZ0jSgBwYFK4EEACKhZANiAAT0ctzSPeNUinYOJdYtCafXAsTKHLGY4WPPRM8pYL5x1UrvnPN0G1yiF4QsTX2Pgyvh2qositdwRGxv3ruo1yR8TcztRXugZF4a5xmcZuQW8hcEmPuk+xS5XXUMzryiEQc=",
            ciphertext: "BERkPl0YZUa9r7JV4W6n/rxsGBpzwdCpIgRaOKxRYuLHx3v5hGnTM1oGOEZzJQnpfvtperUyFfnPB5GP5ioxK4YkrqfjIlF0ip18v30o7TWReJ+MrKYWcC7/TGe/SxPagi/zX9uz4N0Jzp3GFarI5LUQ9mJNIna/3ajuBC9Du94="),
        Vector(
            name: "P521-SHA512-0IV", algorithm: .eciesEncryptionCofactorX963SHA512AESGCM,
            key: "MIHcAgEBBEIAqKpwdZ9JdC3JdVpM7gj1Bgkep3LNTkYWqEYqwNe5w7oyzDh1yU0LVZzefyZNdaagU6DGNdZ+5u9cHqnh9GrQ5gWgBwYFK4EEACOhgYkDgYYABAD+MDxfbvbe9ZRZcZgWyDBbpf3JxHii0iScjxNqNWClJWlehHfX8niGE6VNktRQ3lMIwDSvUy3Esiex3gu8RHZnwAGzPjwLm1/w2YbOfp2TCNTL8m6eYUfLU0SNW7B61koL+Sk50yTHoseP7+lmM2t8x6uKsyLdo+XCIevpW8IEh0s5wg==",
            ciphertext: "BABqJoMa89aD0rRkZ+WrmWTeqUfcr3uvLmyk7KlbWPm45m0ptDeqsaxFtqeM0VR6IoBMQcvcCcW+hzlLPr7i15LJlADzKYe7al7Vp10fJBnnhM2K7Z12o/VtOynEEt+ed5IkP9BiopN/3swl79caHQqXxX+SWQijwosMh0rGFJZPjsPFcPpe8Aj9CiJ3y0hRH1D4fp+qtpx9LOBLyuXvRwdFi0Y="),
        Vector(
            name: "P521-SHA512-VIV", algorithm: .eciesEncryptionCofactorVariableIVX963SHA512AESGCM,
            key: "MIHcAgEBBEIAg0dkiDMo6frSBz50hC2luT3T0oMv/nPnu4nUR+x9PWuGic4cBHkrlrUOwyTBfGmug8fYxNy2ytJhBEyCGookSK+gBwYFK4EEACOhgYkDgYYABACAYs51q+pIrE2k92p2ltjs0iBHTe8Kj+w1+x5hfmXS1tX0aR+kabb5qe6Q83Bsvq/dmj3R59XWmIaTz6tJprSr2gDqS2i9wpWspmDND2dYvhKECXj099CQt19V94qYyUjbXMEDkpvq5ZWQ2DBOnR3XnuwWOYj+Pskg0lseKkok4CtJ4A==",
            ciphertext: "BABIki+hjR7WmHUZz03yTelbH+eEwn0Dtpv8Fxwh7cyaue2ZceAytjlbQD2YA3FHC2Z0NMlk/B0C2Es8dZmPE9keEgBsUW0PjT4CyefgFIc2YEm5yDpcbJEKhj6FlGnOir1nJz8ZMTMdiY6vIrRCBLo6+Ek7iSfQIOGrdER3ESnE/gOdWsd4O3VmDQrwLboTIjKfngmBGlC5sdYUzSbQlsX2UUs="),
    ]

    /// The same source's SHA-224 vector: SHA-224 is not implemented here, so it is refused.
    private let sha224Vector = Vector(
        name: "P256-SHA224-0IV", algorithm: .eciesEncryptionCofactorX963SHA224AESGCM,
        key: "MHcCAQEEIJyzfcyptwjYkgdcFhfJlztLPmcfyzyCFs7NoQuCbAAhoAoGCCqGSM49AwEHoUQDQgAE7WttwmG8qki5bU2utMaugBWbWD9Jx/UPzgnGxthgHteyqPGofBjBwPZTbxj+lrIGNyHRdbOkSusD7051WG8nmg==",
        ciphertext: "BPIMheQOrz0l9wEjcOHQEQ16D9Go8Sm8bEM3LAgMEHUf/eHy3u0oVlfh2po9ocPCuKG2bQ28wlsQ0N6SNJ3O3auS/QeoUogLVcJ3+R1OOeixEJyqeUkn6zB8LcqoZ+Y2")

    /// A signature made by a Secure Enclave key on an iOS device, published in the README of
    /// agens-no/EllipticCurveKeyPair ("Verifying a signature": the demo app's console output
    /// for signing "ABC" (hex 414243), checked there with `openssl dgst -sha256 -verify`):
    /// https://github.com/agens-no/EllipticCurveKeyPair#verifying-a-signature
    /// The public key is published as a PEM SubjectPublicKeyInfo; its last 65 bytes are the
    /// X9.63 point Apple's SecKeyCreateWithData takes.
    private let enclavePublicKeyInfo = """
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEdDONNkwaP8OhqFTmjLxVcByyPa19
        ifY2IVDinFei3SvCBv8fgY8AU+Fm5oODksseV0sd4Zy/biSf6AMr0HqHcw==
        """
    private let enclaveSignature = SecKeyFixtures.hex("""
        3046022100842512baa16a3ec9b977d4456923319442342e3fdae54f2456af0b7b8a09786b022100a1b8d762b6cb3d85b16f6b07d06d2815\
        cb0663e067e0b2f9a9c9293bde8953bb
        """)
    private let enclaveSignedData = Data("ABC".utf8)

    private func enclavePublicKey() throws -> SecKey {
        let info = try XCTUnwrap(Data(base64Encoded: enclavePublicKeyInfo, options: .ignoreUnknownCharacters))
        return try SecKeyFixtures.key(info.suffix(65), type: kSecAttrKeyTypeECSECPrimeRandom, keyClass: kSecAttrKeyClassPublic)
    }

    func testSecureEnclaveSignatureFromAnIPhoneVerifies() throws {
        let key = try enclavePublicKey()
        var error: Unmanaged<CFError>?
        XCTAssertTrue(SecKeyVerifySignature(key, .ecdsaSignatureMessageX962SHA256, enclaveSignedData as CFData, enclaveSignature as CFData, &error),
                      "\(String(describing: error?.takeRetainedValue()))")
        let digest = SecKeyFixtures.digest(enclaveSignedData, for: .ecdsaSignatureMessageX962SHA256)
        XCTAssertTrue(SecKeyVerifySignature(key, .ecdsaSignatureDigestX962SHA256, digest as CFData, enclaveSignature as CFData, nil))
    }

    func testSecureEnclaveSignatureFromAnIPhoneDoesNotVerifyOtherData() throws {
        XCTAssertFalse(SecKeyVerifySignature(try enclavePublicKey(), .ecdsaSignatureMessageX962SHA256, Data("ABD".utf8) as CFData,
                                             enclaveSignature as CFData, nil))
    }

    /// Apple's X9.63 private representation of a SEC1 DER key, through swift-crypto.
    private func privateKey(_ vector: Vector) throws -> SecKey {
        let der = try XCTUnwrap(Data(base64Encoded: vector.key))
        let x963: Data
        switch der.count {
        case ..<130: x963 = try P256.KeyAgreement.PrivateKey(derRepresentation: der).x963Representation
        case ..<190: x963 = try P384.KeyAgreement.PrivateKey(derRepresentation: der).x963Representation
        default: x963 = try P521.KeyAgreement.PrivateKey(derRepresentation: der).x963Representation
        }
        return try SecKeyFixtures.key(x963, type: kSecAttrKeyTypeECSECPrimeRandom, keyClass: kSecAttrKeyClassPrivate)
    }

    func testECIESCiphertextsMadeBySecurityFrameworkDecryptToTheirPublishedPlaintext() throws {
        for vector in vectors {
            let ciphertext = try XCTUnwrap(Data(base64Encoded: vector.ciphertext), vector.name)
            XCTAssertEqual(try SecKeyFixtures.decrypt(privateKey(vector), vector.algorithm, ciphertext), Data(vector.name.utf8), vector.name)
        }
    }

    func testAlteredAppleCiphertextIsRefusedWithErrSecParam() throws {
        let vector = vectors[0]
        var ciphertext = try XCTUnwrap(Data(base64Encoded: vector.ciphertext))
        ciphertext[ciphertext.count - 20] ^= 0x01
        let key = try privateKey(vector)
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateDecryptedData(key, vector.algorithm, ciphertext as CFData, $0) }, Int(errSecParam))
    }

    func testAppleSHA224CiphertextIsRefusedAsUnimplemented() throws {
        let key = try privateKey(sha224Vector)
        let ciphertext = try XCTUnwrap(Data(base64Encoded: sha224Vector.ciphertext))
        XCTAssertFalse(SecKeyIsAlgorithmSupported(key, .decrypt, sha224Vector.algorithm))
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateDecryptedData(key, sha224Vector.algorithm, ciphertext as CFData, $0) },
                       Int(errSecUnimplemented))
    }
}
