import XCTest

/// A sandbox of machines without a server, made before each test and removed after it: the
/// arrangement of every suite that keeps stores locally only.
class SyncSandboxTestCase: XCTestCase {
    /// How many machines the sandbox has; a suite that needs more overrides it.
    class var machines: Int { 1 }

    var sandbox: SyncSandbox!

    override func setUpWithError() throws {
        try super.setUpWithError()
        sandbox = try SyncSandbox(machines: Self.machines)
    }

    override func tearDown() {
        sandbox?.remove()
        super.tearDown()
    }
}
