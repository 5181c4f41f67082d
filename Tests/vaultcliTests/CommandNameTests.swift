import ArgumentParser
@testable import vaultcli
import XCTest

/// Every command names itself. Without a `commandName`, ArgumentParser derives the name with
/// `String(describing:)` of the type, whose dynamic casts make the Swift runtime scan every
/// protocol conformance of the binary once per command type: in vaultcli, which links every
/// product, that was about a sixth of a `records show`'s start-up.
final class CommandNameTests: XCTestCase {
    func testEveryCommandHasAnExplicitName() {
        var unnamed: [String] = []
        var pending: [ParsableCommand.Type] = [VaultCLI.self]
        while let command = pending.popLast() {
            if command.configuration.commandName == nil { unnamed.append("\(command)") }
            pending += command.configuration.subcommands
        }
        XCTAssertEqual(unnamed, [])
    }
}
