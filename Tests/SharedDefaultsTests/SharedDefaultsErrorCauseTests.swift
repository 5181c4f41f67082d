import Foundation
import Keyring
import SharedDefaults
import Vault
import XCTest

/// A SharedDefaults error keeps the Vault error it was made from as ``underlyingError`` (the
/// name every GroupVault error uses); `vaultError` is the same value, typed.
final class SharedDefaultsErrorCauseTests: XCTestCase {
    private var sandbox: DefaultsSandbox!

    override func setUpWithError() throws { sandbox = try DefaultsSandbox() }
    override func tearDown() { sandbox.remove() }

    /// The error reading `plan` fails with after its record file was deleted.
    private func refusalOfADeletedEntry() throws -> SharedDefaultsError? {
        let writer = try sandbox.defaults()
        try writer.set("pro", forKey: "plan")
        let name = writer.recordName(forKey: "plan") + ".gvr"
        let file = try XCTUnwrap(try sandbox.recordFiles().first { $0.lastPathComponent == name })
        try FileManager.default.removeItem(at: file)
        let reader = try sandbox.defaults()
        do {
            _ = try reader.value(forKey: "plan")
        } catch {
            return error
        }
        XCTFail("the deleted entry was read")
        return nil
    }

    func testARefusedEntryKeepsTheVaultErrorAsItsUnderlyingError() throws {
        let error = try XCTUnwrap(try refusalOfADeletedEntry())
        let vaultError = try XCTUnwrap(error.underlyingError as? VaultError, "\(error)")
        XCTAssertEqual(vaultError.code, VaultError.Code(rawValue: "missing"))
    }

    func testTheTypedVaultErrorIsTheUnderlyingError() throws {
        let error = try XCTUnwrap(try refusalOfADeletedEntry())
        XCTAssertEqual(error.vaultError, error.underlyingError as? VaultError)
    }

    func testAnErrorMadeFromAVaultErrorTakesItsRemedy() {
        let vaultError = VaultError(.missingEntitlement, "not entitled", underlyingError: nil, remedy: .grantEntitlement(group: "group.a"))
        XCTAssertEqual(SharedDefaultsError(.missingEntitlement, vaultError.reason, vaultError: vaultError).remedy, vaultError.remedy)
    }
}
