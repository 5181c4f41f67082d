import Foundation
import Vault
import XCTest

/// list(): names, sizes and headers without decrypting.
final class VaultListTests: VaultTestCase {
    func testEmptyVaultListsNothing() throws {

        XCTAssertTrue(try sandbox.vault().list().isEmpty)
    }

    func testListShowsEachRecordWithItsSizeAndHeader() throws {
        let vault = try sandbox.vault()
        let a = try vault.write(AuthState.signedIn, to: "a", expiresAt: TestClock.start.addingTimeInterval(60))
        let b = try vault.write(AuthState.signedOut, to: "b")

        let listing = try vault.list()

        XCTAssertEqual(listing.map(\.name), ["a", "b"])
        XCTAssertEqual(listing.map(\.size), [try sandbox.blob("a", in: vault).count, try sandbox.blob("b", in: vault).count])
        XCTAssertEqual(try listing.map { try $0.header.get() }, [a, b])
    }

    func testListReportsAnUnreadableHeaderForThatRecordOnly() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "good")
        try sandbox.place(Array("not a blob".utf8), as: "junk", in: vault)

        let listing = try vault.list()

        XCTAssertEqual(listing.map(\.name), ["good", "junk"])
        XCTAssertNoThrow(try listing[0].header.get())
        XCTAssertThrowsError(try listing[1].header.get()) { error in
            XCTAssertEqual((error as? VaultError)?.code, .malformed)
        }
        XCTAssertEqual(listing[1].size, 10)
    }

    func testListReportsAFileWhoseNameIsNotARecordName() throws {
        let vault = try sandbox.vault()
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: vault.recordsDirectory.string).appendingPathComponent("bad name.gvr"))

        let listing = try vault.list()

        XCTAssertEqual(listing.map(\.name), ["bad name"])
        XCTAssertThrowsError(try listing[0].header.get()) { error in
            XCTAssertEqual((error as? VaultError)?.code, .invalidName)
        }
    }

    func testListSkipsTemporaryAndForeignFiles() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let directory = URL(fileURLWithPath: vault.recordsDirectory.string)
        try Data([0]).write(to: directory.appendingPathComponent(".auth-state.gvr.tmp-0123456789abcdef"))
        try Data([0]).write(to: directory.appendingPathComponent("notes.txt"))

        XCTAssertEqual(try vault.list().map(\.name), ["auth-state"])
    }
}
