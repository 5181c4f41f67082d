import Foundation
import Vault
import XCTest

/// Schema versions, migration through decode(schemaVersion:from:), and the record's own checks.
final class VaultSchemaTests: VaultTestCase {
    /// Version 1 of a profile: one name field.
    struct ProfileV1: VaultRecord, Equatable {
        static let schemaVersion: UInt32 = 1
        var name: String
    }

    /// Version 2 splits the name and migrates version 1 payloads.
    struct ProfileV2: VaultRecord, Equatable {
        static let schemaVersion: UInt32 = 2
        static let supportedSchemaVersions: ClosedRange<UInt32> = 1...2
        var givenName: String
        var familyName: String

        static func decode(schemaVersion: UInt32, from payload: Data) throws -> ProfileV2 {
            if schemaVersion == 1 {
                let old = try JSONDecoder().decode(ProfileV1.self, from: payload)
                let parts = old.name.split(separator: " ", maxSplits: 1).map(String.init)
                return ProfileV2(givenName: parts.first ?? "", familyName: parts.count > 1 ? parts[1] : "")
            }
            return try JSONDecoder().decode(ProfileV2.self, from: payload)
        }
    }

    /// Reads only version 3 and later.
    struct ProfileV3: VaultRecord {
        static let schemaVersion: UInt32 = 3
        var displayName: String
    }

    func testSchemaNewerThanTheReaderSupportsIsUnsupportedSchema() throws {
        let vault = try sandbox.vault()
        try vault.write(ProfileV2(givenName: "Ada", familyName: "Lovelace"), to: "profile")

        assertRefused(.unsupportedSchema) { () throws(VaultError) in try vault.read(ProfileV1.self, from: "profile") }
    }

    func testSchemaOlderThanTheReaderSupportsIsUnsupportedSchema() throws {
        let vault = try sandbox.vault()
        try vault.write(ProfileV2(givenName: "Ada", familyName: "Lovelace"), to: "profile")

        assertRefused(.unsupportedSchema) { () throws(VaultError) in try vault.read(ProfileV3.self, from: "profile") }
    }

    func testOlderSchemaInTheSupportedRangeIsMigrated() throws {
        let vault = try sandbox.vault()
        try vault.write(ProfileV1(name: "Ada Lovelace"), to: "profile")

        XCTAssertEqual(try vault.read(ProfileV2.self, from: "profile"), ProfileV2(givenName: "Ada", familyName: "Lovelace"))
    }

    func testCurrentSchemaIsDecodedDirectly() throws {
        let vault = try sandbox.vault()
        let profile = ProfileV2(givenName: "Grace", familyName: "Hopper")
        try vault.write(profile, to: "profile")

        XCTAssertEqual(try vault.read(ProfileV2.self, from: "profile"), profile)
    }

    func testWriteRecordsTheTypesSchemaVersion() throws {
        let vault = try sandbox.vault()

        let header = try vault.write(ProfileV2(givenName: "Ada", familyName: "Lovelace"), to: "profile")

        XCTAssertEqual(header.schemaVersion, ProfileV2.schemaVersion)
    }

    func testPayloadThatDoesNotDecodeAsTheTypeIsInvalidRecord() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "profile")

        assertRefused(.invalidRecord) { () throws(VaultError) in try vault.read(ProfileV1.self, from: "profile") }
    }

    func testRecordItsOwnValidationRefusesIsInvalidRecord() throws {
        let vault = try sandbox.vault()
        // Written as a looser type with the same shape; the reader's validate() refuses it.
        try vault.write(LooseAuthState(isAuthenticated: true, displayName: nil), to: "auth-state")

        assertRefused(.invalidRecord) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }
}

/// AuthState's shape without its validation.
private struct LooseAuthState: VaultRecord {
    static let schemaVersion: UInt32 = 1
    var isAuthenticated: Bool
    var displayName: String?
}
