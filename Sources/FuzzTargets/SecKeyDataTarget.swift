// SecKey and SecCertificate exist only where Apple's Security framework does not.
#if !canImport(Darwin)
import Foundation
import Security

extension FuzzTarget {
    /// `SecKeyCreateWithData` (EC or RSA, public or private, chosen by the first byte) and
    /// `SecCertificateCreateWithData` on arbitrary bytes: a key or certificate that round-trips,
    /// or a refusal with errSecParam / nil; never a crash.
    static let secKeyData = FuzzTarget(
        name: "seckey-data",
        summary: "SecKeyCreateWithData / SecCertificateCreateWithData give errSecParam or nil, or a key/certificate that round-trips",
        run: { input throws(FuzzFinding) in
            guard let selector = input.first else { return .refused }
            let data = Data(input.dropFirst())
            if selector & 0x04 != 0 { return try SecKeyDataChecks.certificate(data) }
            return try SecKeyDataChecks.key(data, form: SecKeyDataChecks.forms[Int(selector & 0x03)])
        },
        seeds: {
            try SecKeyDataChecks.seeds()
        })
}

/// The seckey-data target's checks and seeds.
enum SecKeyDataChecks {
    /// (type, class) by the first byte's two low bits.
    static let forms: [(type: String, keyClass: String)] = [
        (kSecAttrKeyTypeECSECPrimeRandom as String, kSecAttrKeyClassPublic as String),
        (kSecAttrKeyTypeECSECPrimeRandom as String, kSecAttrKeyClassPrivate as String),
        (kSecAttrKeyTypeRSA as String, kSecAttrKeyClassPublic as String),
        (kSecAttrKeyTypeRSA as String, kSecAttrKeyClassPrivate as String),
    ]

    static func key(_ data: Data, form: (type: String, keyClass: String)) throws(FuzzFinding) -> FuzzOutcome {
        let attributes = [kSecAttrKeyType as String: form.type, kSecAttrKeyClass as String: form.keyClass] as CFDictionary
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateWithData(data as CFData, attributes, &error) else {
            let code = error?.takeRetainedValue().code
            try expect(code == Int(errSecParam), "refused with \(code.map(String.init) ?? "no error"), not errSecParam")
            return .refused
        }
        guard let exported = SecKeyCopyExternalRepresentation(key, nil) as Data? else {
            throw FuzzFinding("an imported key cannot be exported")
        }
        // EC data is exported byte for byte; RSA DER may be re-encoded (SPKI → PKCS#1), so
        // its export must at least import to the same key.
        if form.type == kSecAttrKeyTypeECSECPrimeRandom as String {
            try expect(exported == data, "the EC key's export differs from its import")
        }
        let again = SecKeyCreateWithData(exported as CFData, attributes, nil)
        try expect(again == key, "the export does not import to the same key")
        let attributesOut = SecKeyCopyAttributes(key) as? [String: Any]
        try expect(attributesOut?[kSecAttrKeyClass as String] as? String == form.keyClass, "SecKeyCopyAttributes names another class")
        return .accepted
    }

    static func certificate(_ data: Data) throws(FuzzFinding) -> FuzzOutcome {
        guard let certificate = SecCertificateCreateWithData(nil, data as CFData) else { return .refused }
        try expect(SecCertificateCopyData(certificate) as Data == data, "the certificate's data differs from its input")
        _ = SecCertificateCopySubjectSummary(certificate)
        if let key = SecCertificateCopyKey(certificate) {
            try expect(SecKeyCopyExternalRepresentation(key, nil) != nil, "a certificate's public key cannot be exported")
        }
        return .accepted
    }

    /// A key of each form (made fresh: only the names are compared with the committed corpus),
    /// a certificate, and damaged variants.
    static func seeds() throws -> [String: [UInt8]] {
        struct SeedFailure: Error {}
        func export(_ type: CFString, _ bits: Int) throws -> (privateKey: Data, publicKey: Data) {
            let parameters = [kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits] as CFDictionary
            guard let key = SecKeyCreateRandomKey(parameters, nil), let publicKey = SecKeyCopyPublicKey(key),
                  let privateData = SecKeyCopyExternalRepresentation(key, nil) as Data?,
                  let publicData = SecKeyCopyExternalRepresentation(publicKey, nil) as Data?
            else { throw SeedFailure() }
            return (privateData, publicData)
        }
        let ec = try export(kSecAttrKeyTypeECSECPrimeRandom, 256)
        let ec521 = try export(kSecAttrKeyTypeECSECPrimeRandom, 521)
        let rsa = try export(kSecAttrKeyTypeRSA, 2048)
        // A self-signed P-256 certificate (CN=GroupVault Test EC), as in SecKeyTests.
        let certificate = Data(base64Encoded: "MIIBhjCCAS2gAwIBAgIIEjRWeJCrze8wCgYIKoZIzj0EAwIwODEZMBcGA1UECgwQR3JvdXBWYXVsdCBUZXN0czEbMBkGA1UEAwwSR3JvdXBWYXVsdCBUZXN0IEVDMB4XDTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowODEZMBcGA1UECgwQR3JvdXBWYXVsdCBUZXN0czEbMBkGA1UEAwwSR3JvdXBWYXVsdCBUZXN0IEVDMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEtNxNt3UWaMEADrELFBUXlGZ0TdE8kTZZjoQNrZWpU4RTtci0O3kxd088L+ijbGoGtYhMs1pCYJbrEHx3GxWOyqMhMB8wHQYDVR0OBBYEFM4R+Nehfg6mGQrLzOGRBJoiwTinMAoGCCqGSM49BAMCA0cAMEQCIGyQqFSVM/jr01zDKuKzfkJqERL3FiGtyv6a7lo4OR5rAiBMj/cBMftabOtw/eolDOLnRmVMH6dgcOEPqCPx/TGEZQ==")!
        func seed(_ selector: UInt8, _ data: Data) -> [UInt8] { [selector] + Array(data) }
        return [
            "valid-ec-public": seed(0, ec.publicKey),
            "valid-ec-private": seed(1, ec.privateKey),
            "valid-ec521-private": seed(1, ec521.privateKey),
            "valid-rsa-public": seed(2, rsa.publicKey),
            "valid-rsa-private": seed(3, rsa.privateKey),
            "valid-certificate": seed(4, certificate),
            "ec-public-truncated": seed(0, ec.publicKey.dropLast()),
            "rsa-private-as-public": seed(2, rsa.privateKey),
            "certificate-truncated": seed(4, certificate.dropLast(10)),
        ]
    }
}
#endif
