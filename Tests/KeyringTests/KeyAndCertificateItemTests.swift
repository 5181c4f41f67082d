import Foundation
import GroupVaultTestKit
@testable import Keyring
import SealedStorage
import XCTest

/// Key and certificate items with Apple's semantics (docs/SECITEM.md, "Keys, certificates and
/// identities"): primary keys, matching, identities, and Secure Enclave keys at rest. The
/// keyring stores bytes and attributes only, so the bytes here are random stand-ins; the
/// Security module's tests use real keys and certificates.
final class KeyAndCertificateItemTests: ItemTestCase {
    private static func bytes(_ count: Int) -> Data { Data((0..<count).map { _ in UInt8.random(in: 0...255) }) }

    private func keyItem(
        _ keyClass: KeyAttributes.KeyClass = .private, label: Data = Data(repeating: 1, count: 20), tag: Data? = Data("com.example.key".utf8),
        keyData: Data = bytes(97), tokenID: String? = nil, accessGroup: GroupIdentifier? = nil
    ) -> KeychainItem {
        KeychainItem(
            key: KeyAttributes(keyClass: keyClass, keyType: "73", sizeInBits: 256, applicationLabel: label, applicationTag: tag, tokenID: tokenID),
            keyData: keyData, accessGroup: accessGroup, label: "signing key")
    }

    private func certificateItem(serial: Data = Data([1, 2, 3]), issuer: Data = Data("issuer".utf8), keyHash: Data = Data(repeating: 1, count: 20), label: String = "leaf") -> KeychainItem {
        KeychainItem(
            certificate: CertificateAttributes(subject: Data("subject".utf8), issuer: issuer, serialNumber: serial, publicKeyHash: keyHash),
            der: Self.bytes(300), label: label)
    }

    private func assertStatus<T>(_ expected: KeyringStatus, _ body: @autoclosure () throws -> T, file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try body()
            XCTFail("expected \(expected), but the call succeeded", file: file, line: line)
        } catch let error as KeyringError {
            XCTAssertEqual(error.status, expected, error.reason, file: file, line: line)
        } catch {
            XCTFail("expected a KeyringError, got \(error)", file: file, line: line)
        }
    }

    // MARK: Primary keys

    func testAKeyWithTheSameClassLabelTagTypeAndSizeIsADuplicate() throws {
        try keyring.add(keyItem())
        assertStatus(.duplicateItem, try keyring.add(keyItem()))
    }

    func testKeysDifferingOnlyInApplicationTagAreTwoItems() throws {
        try keyring.add(keyItem(tag: Data("a".utf8)))
        try keyring.add(keyItem(tag: Data("b".utf8)))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(.key)).count, 2)
    }

    func testAnAbsentApplicationTagIsTheEmptyTag() throws {
        try keyring.add(keyItem(tag: nil))
        assertStatus(.duplicateItem, try keyring.add(keyItem(tag: Data())))
    }

    func testThePublicAndPrivateKeyOfOnePairAreTwoItems() throws {
        try keyring.add(keyItem(.private))
        try keyring.add(keyItem(.public, keyData: Self.bytes(65)))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(.key)).count, 2)
    }

    func testAKeyLabelIsNotPartOfItsPrimaryKey() throws {
        var first = keyItem()
        first.label = "one"
        var second = keyItem()
        second.label = "two"
        try keyring.add(first)
        assertStatus(.duplicateItem, try keyring.add(second))
    }

    func testACertificateWithTheSameIssuerAndSerialNumberIsADuplicate() throws {
        try keyring.add(certificateItem(label: "one"))
        assertStatus(.duplicateItem, try keyring.add(certificateItem(label: "two")))
    }

    func testCertificatesWithAnotherSerialNumberAreTwoItems() throws {
        try keyring.add(certificateItem(serial: Data([1])))
        try keyring.add(certificateItem(serial: Data([2])))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(.certificate)).count, 2)
    }

    func testAKeyAndAPasswordNeverCollide() throws {
        try keyring.add(keyItem())
        try keyring.add(KeychainItem(secret: Data("pw".utf8)))
        XCTAssertEqual(try keyring.items(matching: ItemQuery(.key)).count, 1)
        XCTAssertEqual(try keyring.items(matching: ItemQuery(.genericPassword)).count, 1)
    }

    func testAKeyItemWithoutKeyAttributesIsRefused() {
        assertStatus(.invalidParameter, try keyring.add(KeychainItem(.key, secret: Data([1]))))
    }

    // MARK: Matching

    func testAKeyQueryByApplicationTagFindsOnlyThatKey() throws {
        try keyring.add(keyItem(tag: Data("a".utf8)))
        try keyring.add(keyItem(tag: Data("b".utf8)))
        var query = ItemQuery(.key)
        query.key.applicationTag = Data("b".utf8)
        XCTAssertEqual(try keyring.items(matching: query).map(\.key?.applicationTag), [Data("b".utf8)])
    }

    func testAKeyQueryByKeyClassFindsOnlyThatClass() throws {
        try keyring.add(keyItem(.private))
        try keyring.add(keyItem(.public, keyData: Self.bytes(65)))
        var query = ItemQuery(.key)
        query.key.keyClass = .public
        XCTAssertEqual(try keyring.items(matching: query).map(\.key?.keyClass), [.public])
    }

    func testAKeyQueryByUsageFindsKeysThatHaveIt() throws {
        try keyring.add(keyItem(.private))
        try keyring.add(keyItem(.public, keyData: Self.bytes(65)))
        var query = ItemQuery(.key)
        query.key.requiredUsage = .sign
        XCTAssertEqual(try keyring.items(matching: query).map(\.key?.keyClass), [.private])
        query.key.requiredUsage = []
        query.key.refusedUsage = .sign
        XCTAssertEqual(try keyring.items(matching: query).map(\.key?.keyClass), [.public])
    }

    func testACertificateQueryBySerialNumberFindsOnlyThatCertificate() throws {
        try keyring.add(certificateItem(serial: Data([1])))
        try keyring.add(certificateItem(serial: Data([2])))
        var query = ItemQuery(.certificate)
        query.certificate.serialNumber = Data([2])
        XCTAssertEqual(try keyring.items(matching: query).map(\.certificate?.serialNumber), [Data([2])])
    }

    func testAnUpdateCanRetagAKey() throws {
        try keyring.add(keyItem(tag: Data("old".utf8)))
        var changes = ItemChanges()
        changes.applicationTag = .some(Data("new".utf8))
        XCTAssertEqual(try keyring.update(matching: ItemQuery(.key), with: changes), 1)
        var query = ItemQuery(.key)
        query.key.applicationTag = Data("new".utf8)
        XCTAssertEqual(try keyring.items(matching: query).count, 1)
    }

    func testAnUpdateCannotGiveAKeyNewBytes() throws {
        try keyring.add(keyItem())
        var changes = ItemChanges()
        changes.secret = Self.bytes(97)
        assertStatus(.invalidParameter, try keyring.update(matching: ItemQuery(.key), with: changes))
    }

    // MARK: Identities

    func testAnIdentityIsACertificateWithThePrivateKeyWhoseLabelIsItsPublicKeyHash() throws {
        let hash = Data(repeating: 7, count: 20)
        try keyring.add(keyItem(.private, label: hash))
        try keyring.add(certificateItem(keyHash: hash))
        let identities = try keyring.identities(matching: ItemQuery(.certificate))
        XCTAssertEqual(identities.count, 1)
        XCTAssertEqual(identities.first?.privateKey.key?.applicationLabel, hash)
        XCTAssertEqual(identities.first?.certificate.certificate?.publicKeyHash, hash)
    }

    func testACertificateWithoutItsPrivateKeyIsNoIdentity() throws {
        try keyring.add(keyItem(.private, label: Data(repeating: 7, count: 20)))
        try keyring.add(certificateItem(keyHash: Data(repeating: 8, count: 20)))
        XCTAssertEqual(try keyring.identities(matching: ItemQuery(.certificate)).count, 0)
    }

    func testAPublicKeyDoesNotCompleteAnIdentity() throws {
        let hash = Data(repeating: 7, count: 20)
        try keyring.add(keyItem(.public, label: hash, keyData: Self.bytes(65)))
        try keyring.add(certificateItem(keyHash: hash))
        XCTAssertEqual(try keyring.identities(matching: ItemQuery(.certificate)).count, 0)
    }

    func testAnIdentityPairsAcrossTheCallersAccessGroups() throws {
        let hash = Data(repeating: 7, count: 20)
        try keyring.add(keyItem(.private, label: hash, accessGroup: ItemTestHome.appGroup))
        try keyring.add(certificateItem(keyHash: hash))
        XCTAssertEqual(try keyring.identities(matching: ItemQuery(.certificate)).count, 1)
    }

    // MARK: Secure Enclave keys at rest

    func testASecureEnclaveKeyIsReturnedOnlyAsASealedBlob() throws {
        let keyData = Self.bytes(97)
        try keyring.add(keyItem(keyData: keyData, tokenID: KeyAttributes.secureEnclaveToken))
        let stored = try keyring.item(matching: ItemQuery(.key))
        XCTAssertNotEqual(stored.secret, keyData)
        XCTAssertNil(stored.secret.range(of: keyData.suffix(32)), "the scalar is inside the returned data")
        XCTAssertEqual(try keyring.itemsForKeyUse(matching: ItemQuery(.key)).first?.secret, keyData)
    }

    func testASoftwareKeyIsReturnedAsItsBytes() throws {
        let keyData = Self.bytes(97)
        try keyring.add(keyItem(keyData: keyData))
        XCTAssertEqual(try keyring.item(matching: ItemQuery(.key)).secret, keyData)
    }

    func testASecureEnclaveKeyIsAnECP256Key() {
        let rsa = KeychainItem(
            key: KeyAttributes(keyClass: .private, keyType: "42", sizeInBits: 2048, applicationLabel: Data([1]), tokenID: KeyAttributes.secureEnclaveToken),
            keyData: Self.bytes(1200))
        assertStatus(.invalidParameter, try keyring.add(rsa))
    }

    func testASecureEnclaveBlobOpensOnlyForTheKeyItWasSealedFor() throws {
        let key = try SymmetricKey(bytes: Array(Self.bytes(32)))
        let blob = SecureEnclaveSealing.seal(Data([1, 2, 3]), label: Data([1]), key: key)
        XCTAssertEqual(try SecureEnclaveSealing.open(blob, label: Data([1]), key: key, item: "key one"), Data([1, 2, 3]))
        assertStatus(.decode, try SecureEnclaveSealing.open(blob, label: Data([2]), key: key, item: "key two"))
    }

    func testASecureEnclavePrivateScalarIsInNoFileOfTheHome() throws {
        let scalar = Self.bytes(32)
        let x963 = Data([0x04]) + Self.bytes(64) + scalar
        try keyring.add(keyItem(keyData: x963, tokenID: KeyAttributes.secureEnclaveToken))
        _ = try keyring.items(matching: ItemQuery(.key))
        try HomeScan.assertNoFile(under: home.home.root, contains: [scalar, x963])
    }

    // MARK: Password codes and flags

    func testCreatorTypeAndFlagsAreStoredAndReturned() throws {
        var item = KeychainItem(service: "api", account: "me", secret: Data("pw".utf8))
        item.creator = .number(0x6143_7274)
        item.type = .text("Type Test")
        item.isInvisible = true
        item.isNegative = true
        try keyring.add(item)
        let stored = try keyring.item(matching: ItemQuery(service: "api"))
        XCTAssertEqual(stored.creator, .number(0x6143_7274))
        XCTAssertEqual(stored.type, .text("Type Test"))
        XCTAssertEqual(stored.isInvisible, true)
        XCTAssertEqual(stored.isNegative, true)
    }

    func testCreatorIsNotPartOfThePrimaryKey() throws {
        var first = KeychainItem(service: "api", account: "me", secret: Data("1".utf8))
        first.creator = .number(1)
        var second = KeychainItem(service: "api", account: "me", secret: Data("2".utf8))
        second.creator = .number(2)
        try keyring.add(first)
        assertStatus(.duplicateItem, try keyring.add(second))
    }

    func testAQueryByCreatorFindsOnlyItemsWithIt() throws {
        var stamped = KeychainItem(service: "api", account: "a", secret: Data("1".utf8))
        stamped.creator = .number(0x6B63_636C)
        try keyring.add(stamped)
        try keyring.add(KeychainItem(service: "api", account: "b", secret: Data("2".utf8)))
        var query = ItemQuery(service: "api")
        query.creator = .number(0x6B63_636C)
        XCTAssertEqual(try keyring.items(matching: query).map(\.account), ["a"])
    }

    func testAnAbsentCreatorMatchesZeroAndAnAbsentFlagMatchesFalse() throws {
        try keyring.add(KeychainItem(service: "api", account: "a", secret: Data("1".utf8)))
        var query = ItemQuery(service: "api")
        query.creator = .number(0)
        query.isInvisible = false
        query.isNegative = false
        XCTAssertEqual(try keyring.items(matching: query).count, 1)
        query.isInvisible = true
        XCTAssertEqual(try keyring.items(matching: query).count, 0)
    }

    func testANumberCodeNeverMatchesAStringCode() throws {
        var item = KeychainItem(service: "api", account: "a", secret: Data("1".utf8))
        item.type = .text("1")
        try keyring.add(item)
        var query = ItemQuery(service: "api")
        query.type = .number(1)
        XCTAssertEqual(try keyring.items(matching: query).count, 0)
    }

    func testAnUpdateSetsTheCreatorAndFlags() throws {
        try keyring.add(KeychainItem(service: "api", account: "a", secret: Data("1".utf8)))
        var changes = ItemChanges()
        changes.creator = .some(.number(9))
        changes.isInvisible = true
        try keyring.update(matching: ItemQuery(service: "api"), with: changes)
        let stored = try keyring.item(matching: ItemQuery(service: "api"))
        XCTAssertEqual(stored.creator, .number(9))
        XCTAssertEqual(stored.isInvisible, true)
    }
}

/// Scans every byte of every regular file under a home for values that must never be stored
/// in the clear. Test code: it reads the files directly, as an attacker with the disk would.
enum HomeScan {
    static func assertNoFile(under root: URL, contains needles: [Data], file: StaticString = #filePath, line: UInt = #line) throws {
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        var scanned = 0
        while let url = files?.nextObject() as? URL {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            let contents = try Data(contentsOf: url)
            scanned += 1
            for needle in needles where contents.range(of: needle) != nil {
                XCTFail("\(url.path) contains a \(needle.count)-byte secret in the clear", file: file, line: line)
            }
        }
        XCTAssertGreaterThan(scanned, 0, "no file was scanned under \(root.path)", file: file, line: line)
    }
}
