// These tests exercise the Linux emulator; on Apple platforms SecItem is the real framework.
#if !canImport(Darwin)
import Foundation
import GroupVaultTestKit
import Keyring
import KeyringTestSupport
import Security
import XCTest

/// A key item shared through an access group, across real processes: an app creates a
/// permanent key, its widget (same keychain access group, another bundle) signs with it, a
/// stranger (no shared group) cannot find it, exactly as on a device. Each child process takes
/// its identity from the `GROUPVAULT_*` environment (GroupVaultFixture's SecKeyItemCommands).
final class SecKeyMultiProcessTests: XCTestCase {
    static let keychainGroup = "ABCDE12345.com.example.shared"
    static let message = "transfer 10 to alice"

    var keychain: TestKeychain!
    var app: Identity!
    var widget: Identity!
    var stranger: Identity!

    override func setUpWithError() throws {
        keychain = try TestKeychain(teamID: "ABCDE12345", bundleID: "com.example.test", keychainAccessGroups: [Self.keychainGroup])
        app = try TestKeychain.identity(bundleID: "com.example.app", keychainAccessGroups: [Self.keychainGroup])
        widget = try TestKeychain.identity(bundleID: "com.example.app.widget", keychainAccessGroups: [Self.keychainGroup])
        stranger = try TestKeychain.identity(bundleID: "com.example.other")
    }

    override func tearDown() {
        keychain?.restore()
        keychain = nil
    }

    /// Runs a fixture command as `identity`; its `key value` output lines.
    private func run(_ arguments: [String], as identity: Identity, file: StaticString = #filePath, line: UInt = #line) throws -> [String: String] {
        let run = try FixtureProcess.run(arguments, environment: try keychain.environment(for: identity))
        XCTAssertEqual(run.status, 0, run.output + run.errors, file: file, line: line)
        var values: [String: String] = [:]
        for outputLine in run.output.split(separator: "\n") {
            let parts = outputLine.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        return values
    }

    private func createKey(_ tag: String, kind: String = "software") throws -> [String: String] {
        let created = try run(["seckey-create", tag, Self.keychainGroup, kind], as: app)
        XCTAssertNotNil(created["public"], "the app did not create the key")
        return created
    }

    private func publicKey(_ hex: String) throws -> SecKey {
        let attributes = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassPublic] as CFDictionary
        return try XCTUnwrap(SecKeyCreateWithData(try XCTUnwrap(Data(hexadecimal: hex)) as CFData, attributes, nil))
    }

    func testAKeyCreatedByTheAppSignsInItsWidgetsProcess() throws {
        let created = try createKey("com.example.signing")
        let signed = try run(["seckey-sign", "com.example.signing", Self.message], as: widget)
        XCTAssertEqual(signed["status"], "\(errSecSuccess)")
        let signature = try XCTUnwrap(signed["signature"].flatMap { Data(hexadecimal: $0) })
        XCTAssertTrue(SecKeyVerifySignature(
            try publicKey(try XCTUnwrap(created["public"])), .ecdsaSignatureMessageX962SHA256,
            Data(Self.message.utf8) as CFData, signature as CFData, nil))
    }

    func testAKeyOfAnotherAccessGroupIsNotFoundByAStranger() throws {
        _ = try createKey("com.example.signing")
        let signed = try run(["seckey-sign", "com.example.signing", Self.message], as: stranger)
        XCTAssertEqual(signed["status"], "\(errSecItemNotFound)")
        XCTAssertNil(signed["signature"])
    }

    func testASecureEnclaveKeyCreatedInOneProcessSignsInAnother() throws {
        let created = try createKey("com.example.enclave", kind: "enclave")
        let signed = try run(["seckey-sign", "com.example.enclave", Self.message], as: widget)
        XCTAssertEqual(signed["status"], "\(errSecSuccess)")
        let signature = try XCTUnwrap(signed["signature"].flatMap { Data(hexadecimal: $0) })
        XCTAssertTrue(SecKeyVerifySignature(
            try publicKey(try XCTUnwrap(created["public"])), .ecdsaSignatureMessageX962SHA256,
            Data(Self.message.utf8) as CFData, signature as CFData, nil))
    }

    func testASecureEnclavePrivateKeyCreatedByAnotherProcessIsInNoFileOfTheHome() throws {
        let created = try createKey("com.example.enclave", kind: "enclave")
        // The widget reads and uses it too, so every file a read might write exists.
        XCTAssertEqual(try run(["seckey-sign", "com.example.enclave", Self.message], as: widget)["status"], "\(errSecSuccess)")
        let x963 = try XCTUnwrap(created["private"].flatMap { Data(hexadecimal: $0) })
        XCTAssertEqual(x963.count, 97, "04 | X | Y | K")
        let scalar = x963.suffix(32)
        let home = URL(fileURLWithPath: try XCTUnwrap(try keychain.environment()["GROUPVAULT_HOME"]))
        var scanned = 0
        let files = FileManager.default.enumerator(at: home, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = files?.nextObject() as? URL {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            let contents = try Data(contentsOf: url)
            scanned += 1
            XCTAssertNil(contents.range(of: scalar), "\(url.path) holds the private scalar in the clear")
            XCTAssertNil(contents.range(of: x963), "\(url.path) holds the X9.63 private key in the clear")
        }
        XCTAssertGreaterThan(scanned, 0)
    }
}

private extension Data {
    /// Bytes from lowercase or uppercase hexadecimal; `nil` for anything else.
    init?(hexadecimal text: String) {
        guard text.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.init(bytes)
    }
}
#endif
