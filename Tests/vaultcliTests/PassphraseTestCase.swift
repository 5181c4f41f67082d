import Foundation
import XCTest

/// The base of the passphrase tests: ``VaultCLITestCase`` with a runtime directory of its own
/// (`XDG_RUNTIME_DIR`, 0700), where `vaultcli unlock` keeps the unlock key.
class PassphraseTestCase: VaultCLITestCase {
    var runtimeDirectory: URL { directory.url.appendingPathComponent("runtime") }

    override var environment: [String: String] {
        super.environment.merging(["XDG_RUNTIME_DIR": runtimeDirectory.path]) { _, new in new }
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try FileManager.default.createDirectory(at: runtimeDirectory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    }
}
