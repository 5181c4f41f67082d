import GroupSync
import GroupSyncTestKit
import XCTest

/// TLS to the server over a real handshake: a server on localhost whose certificate a private
/// certificate authority signed for the host name `localhost` only, reached with a password
/// (`scripts/postgres-server start --tls`). What the URL's `sslmode` and `sslrootcert` ask for
/// is what the connection checks (docs/SYNC.md, section 6).
final class TLSConnectionTests: SyncSandboxTestCase {
    override class var machines: Int { 2 }

    private var server: PostgresServer!
    private var tls: (port: Int, rootCertificate: String)!

    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try PostgresServer()
        try server.start(tls: true)
        tls = try XCTUnwrap(server.tls)
    }

    override func tearDown() {
        server?.remove()
        super.tearDown()
    }

    /// The URL of the TLS port through `host`, with `query` (`sslmode` and the rest).
    private func url(host: String = "localhost", _ query: String) -> String {
        "postgres://groupsync:\(PostgresServer.tlsPassword)@\(host):\(tls.port)/groupsync?\(query)"
    }

    /// The error of one exchange of machine 0's store through `url`, or `nil` when it succeeded.
    private func exchange(_ url: String) async throws -> SyncError? {
        let store = try sandbox.store(0, url: url)
        store.set("dark", forKey: "theme")
        do throws(SyncError) {
            try await store.synchronizeWithServer()
            return nil
        } catch {
            return error
        }
    }

    func testAServerBehindAPrivateAuthorityIsReachedWithVerifyFullAndItsRootCertificate() async throws {
        let url = url("sslmode=verify-full&sslrootcert=\(tls.rootCertificate)")

        let failure = try await exchange(url)

        XCTAssertNil(failure)
        let reader = try sandbox.store(1, url: url)
        try await reader.synchronizeWithServer()
        XCTAssertEqual(reader.string(forKey: "theme"), "dark", "written and read over TLS, with the password")
    }

    func testWithoutItsRootCertificateTheServersCertificateIsRefused() async throws {
        let failure = try await exchange(url("sslmode=require"))

        XCTAssertEqual(failure?.code, .server, "the system's authorities do not know the private one: \(String(describing: failure))")
        XCTAssertEqual(try server.value("SELECT count(*) FROM pg_tables WHERE tablename = 'groupsync_entry'"), "0",
                       "no session got far enough to create GroupSync's schema")
        XCTAssertTrue(failure?.reason.contains("CERTIFICATE_VERIFY_FAILED") ?? false, "the reason says why: \(String(describing: failure))")
    }

    func testVerifyFullRefusesACertificateForAnotherHostName() async throws {
        // The certificate names `localhost`, not the address.
        let failure = try await exchange(url(host: "127.0.0.1", "sslmode=verify-full&sslrootcert=\(tls.rootCertificate)"))

        XCTAssertEqual(failure?.code, .server, String(describing: failure))
        XCTAssertTrue(failure?.reason.contains("failedToValidateHostname") ?? false, "the reason says why: \(String(describing: failure))")
    }

    func testVerifyCAChecksTheCertificateButNotTheHostName() async throws {
        let failure = try await exchange(url(host: "127.0.0.1", "sslmode=verify-ca&sslrootcert=\(tls.rootCertificate)"))

        XCTAssertNil(failure)
    }
}
