import Foundation
@testable import Keyring
import SealedStorage
import XCTest

/// The bytes an item row is sealed over are part of the on-disk format (docs/STORAGE.md,
/// "Items"): rows written by any version must open under any later one, so the layout is pinned
/// here byte for byte, independently of how the code builds it.
final class ItemRowLayoutTests: XCTestCase {
    func testAdditionalDataIsTheTagFormatAndEachFieldLengthPrefixed() {
        let group = GroupIdentifier(rawValue: "ABCDE12345.com.example.shared")!
        let hashes = ItemTable.Hashes(
            key: [UInt8](repeating: 1, count: 32), service: [UInt8](repeating: 2, count: 32),
            account: [UInt8](repeating: 3, count: 32), server: [UInt8](repeating: 4, count: 32),
            reference: [UInt8](repeating: 5, count: 32))

        var expected = Array("GVIT".utf8) + [1]
        for field in [Array(group.rawValue.utf8), Array("genp".utf8)] + (1...5).map({ [UInt8](repeating: $0, count: 32) }) {
            expected += [0, 0, 0, UInt8(field.count)] + field
        }

        XCTAssertEqual(ItemTable.additionalData(format: 1, group: group, itemClass: "genp", hashes: hashes), expected)
    }

    func testAnAttributeHashIsKeyedBLAKE2bOfTheDomainGroupNameAndValueLengthPrefixed() throws {
        let group = GroupIdentifier(rawValue: "group.com.example")!
        let key = try SymmetricKey(bytes: [UInt8](repeating: 9, count: 32))
        var message = Array("GroupVault item attribute 1".utf8)
        for field in [Array(group.rawValue.utf8), Array("service".utf8), Array("api".utf8)] {
            message += [0, 0, 0, UInt8(field.count)] + field
        }

        XCTAssertEqual(ItemTable.Hashes.attribute("service", Array("api".utf8), in: group, key: key), Digest.keyedBLAKE2b256(message, key: key))
    }

    /// A primary key's hash is the attribute "primary key" whose value is: synchronizable (one
    /// byte), the port (eight bytes, big-endian), then class, service, account, server,
    /// protocol, path, authentication type and security domain, each length-prefixed.
    func testAPrimaryKeyHashIsTheAttributeOfItsFieldsLengthPrefixed() throws {
        let group = GroupIdentifier(rawValue: "group.com.example")!
        let key = try SymmetricKey(bytes: [UInt8](repeating: 9, count: 32))
        let generic = KeychainItem(service: "api", account: "me", accessGroup: group, secret: Data(), isSynchronizable: true)
        let internet = KeychainItem(
            .internetPassword, account: "me", accessGroup: group, secret: Data(),
            server: "example.com", protocol: "htps", port: 443, path: "/a", authenticationType: "dflt", securityDomain: "realm")

        for (item, synchronizable, port, fields) in [
            (generic, UInt8(1), [UInt8](repeating: 0, count: 8), ["genp", "api", "me", "", "", "", "", ""]),
            (internet, UInt8(0), [0, 0, 0, 0, 0, 0, 1, 0xBB], ["inet", "", "me", "example.com", "htps", "/a", "dflt", "realm"]),
        ] {
            var value = [synchronizable] + port
            for field in fields {
                value += [0, 0, 0, UInt8(field.utf8.count)] + Array(field.utf8)
            }
            XCTAssertEqual(Array(ItemTable.Hashes(item, in: group, key: key).key), ItemTable.Hashes.attribute("primary key", value, in: group, key: key), fields[0])
        }
    }

    /// A key's primary-key message appends its class attributes after the eight strings.
    func testAKeysPrimaryKeyHashAppendsItsClassAttributes() throws {
        let group = GroupIdentifier(rawValue: "group.com.example")!
        let key = try SymmetricKey(bytes: [UInt8](repeating: 9, count: 32))
        var item = KeychainItem(.key, accessGroup: group, secret: Data([1]))
        item.key = KeyAttributes(keyClass: .private, keyType: "73", sizeInBits: 256, applicationLabel: Data([2, 3]))
        let classAttributes = item.primaryKey.classAttributes
        XCTAssertFalse(classAttributes.isEmpty)

        var value: [UInt8] = [0] + [UInt8](repeating: 0, count: 8)
        for field in ["keys", "", "", "", "", "", "", ""] {
            value += [0, 0, 0, UInt8(field.utf8.count)] + Array(field.utf8)
        }
        value += classAttributes

        XCTAssertEqual(Array(ItemTable.Hashes(item, in: group, key: key).key), ItemTable.Hashes.attribute("primary key", value, in: group, key: key))
    }

    /// An opened row's check: its five stored hashes must each be its item's.
    func testStoredHashesMatchTheirItemOnlyWhenAllFiveAreItsOwn() throws {
        let group = GroupIdentifier(rawValue: "group.com.example")!
        let key = try SymmetricKey(bytes: [UInt8](repeating: 9, count: 32))
        var item = KeychainItem(service: "api", account: "me", accessGroup: group, secret: Data(), server: "example.com")
        item.persistentReference = Data([7, 7])
        let hasher = ItemTable.Hashes.hasher(for: group, key: key)
        let hashes = ItemTable.Hashes(item, in: group, key: key)

        XCTAssertTrue(hashes.match(item, hasher: hasher))
        for field in 0..<5 {
            var fields = [hashes.key, hashes.service, hashes.account, hashes.server, hashes.reference].map { Array($0) }
            fields[field][0] ^= 1
            let altered = ItemTable.Hashes(key: fields[0], service: fields[1], account: fields[2], server: fields[3], reference: fields[4])
            XCTAssertFalse(altered.match(item, hasher: hasher), "hash \(field) altered")
        }
        XCTAssertTrue(hashes.match(item, hasher: hasher), "the hasher goes on from its start after a mismatch")
    }

    /// A row's five hashes are read into one buffer and sliced: each is its own column's bytes,
    /// whatever the lengths a damaged row gives them, empty included.
    func testHashesReadFromARowAreEachTheirOwnColumnsBytes() throws {
        let connection = try SQLiteConnection(inMemory: ())
        try connection.execute("CREATE TABLE row (a BLOB, b BLOB, c BLOB, d BLOB, e BLOB)")
        let columns: [[UInt8]] = [Array(repeating: 1, count: 32), [], [3], Array(repeating: 4, count: 33), Array(repeating: 5, count: 31)]
        try connection.run("INSERT INTO row VALUES (?, ?, ?, ?, ?)", columns.map { .blob($0) })

        let read = try XCTUnwrap(connection.query("SELECT a, b, c, d, e FROM row") { ItemTable.Hashes(reading: $0, from: 0) }.first)

        XCTAssertEqual([read.key, read.service, read.account, read.server, read.reference].map { Array($0) }, columns)
        XCTAssertEqual(read, ItemTable.Hashes(key: columns[0], service: columns[1], account: columns[2], server: columns[3], reference: columns[4]))
    }
}
