import Foundation
import InMemoryLogging
import Keyring
import Logging
import SharedDefaults
import Vault
import XCTest

/// A refused entry reads as "not set" through the getters; the keyring's logger is where the
/// reason shows, once per change of the entry rather than once per getter call.
final class SharedDefaultsDiagnosticsTests: XCTestCase {
    private var sandbox: DefaultsSandbox!

    override func setUpWithError() throws { sandbox = try DefaultsSandbox() }
    override func tearDown() { sandbox.remove() }

    func testAnEntryRefusedBehindTheGettersIsLoggedOnceWithItsReason() throws {
        try sandbox.defaults().set("dark", forKey: "theme")
        let record = try XCTUnwrap(sandbox.recordFiles().first)
        var blob = try Data(contentsOf: record)
        blob[blob.count - 5] ^= 0x01
        try blob.write(to: record)

        let logs = InMemoryLogHandler()
        var keyring = sandbox.keyring
        keyring.logger = Logger(label: "test", factory: { _ in logs })
        let defaults = try SharedDefaults(suiteName: DefaultsSandbox.group.rawValue, group: DefaultsSandbox.group, keyring: keyring)
        XCTAssertNil(defaults.string(forKey: "theme"))
        XCTAssertNil(defaults.string(forKey: "theme"))

        let refusals = logs.entries.filter { $0.message.description == "shared defaults entry refused; getters return no value" }
        XCTAssertEqual(refusals.count, 1, "\(logs.entries)")
        XCTAssertEqual(refusals.first?.level, .info)
        XCTAssertEqual(refusals.first?.metadata["reason"], "authenticationFailed")
        XCTAssertFalse("\(logs.entries)".contains("dark"), "a value reached the log")
    }
}
