import Foundation
import XCTest

/// Passphrases and secrets typed at terminal prompts: the built vaultcli runs on a
/// pseudo-terminal that is its controlling terminal (`/dev/tty`) and standard input, and the
/// test types at its prompts as a person would. What the terminal displays must never hold
/// what was typed.
final class PassphrasePromptTests: PassphraseTestCase {
    private let passphrase = "typed-at-the-terminal-7f3a"

    private func atTerminal(_ arguments: [String], typing exchanges: [PseudoTerminalSession.Exchange]) throws -> PseudoTerminalSession.Outcome {
        try PseudoTerminalSession.run(vaultcliURL, arguments, environment: environment, exchanges: exchanges)
    }

    func testAPassphraseTypedAtThePromptIsNotEchoedAndIsTheOneSet() throws {
        let set = try atTerminal(["passphrase", "set", "--argon2-cost", "minimum"], typing: [
            .init(prompt: "New passphrase: ", line: passphrase),
            .init(prompt: "Repeat it: ", line: passphrase),
        ])

        XCTAssertEqual(set.status, 0, set.transcript)
        XCTAssertFalse(set.transcript.contains(passphrase), "the terminal showed the typed passphrase:\n\(set.transcript)")
        // The typed passphrase is the one that now unlocks the home.
        let unlock = try run(["unlock", "--passphrase-fd", "0", "--argon2-cost", "minimum"], input: passphrase + "\n", environment: environment)
        XCTAssertEqual(unlock.status, 0, unlock.transcript)
    }

    func testAPassphraseTypedToUnlockIsNotEchoed() throws {
        let set = try run(["passphrase", "set", "--passphrase-fd", "0", "--argon2-cost", "minimum"], input: passphrase + "\n", environment: environment)
        XCTAssertEqual(set.status, 0, set.transcript)

        let unlock = try atTerminal(["unlock", "--argon2-cost", "minimum"], typing: [.init(prompt: "Passphrase: ", line: passphrase)])

        XCTAssertEqual(unlock.status, 0, unlock.transcript)
        XCTAssertFalse(unlock.transcript.contains(passphrase), "the terminal showed the typed passphrase:\n\(unlock.transcript)")
    }

    func testTwoDifferentPassphrasesTypedAtThePromptsSetNothing() throws {
        let set = try atTerminal(["passphrase", "set", "--argon2-cost", "minimum"], typing: [
            .init(prompt: "New passphrase: ", line: passphrase),
            .init(prompt: "Repeat it: ", line: passphrase + "-not"),
        ])

        XCTAssertNotEqual(set.status, 0, set.transcript)
        XCTAssertTrue(set.transcript.contains("the two passphrases differ"), set.transcript)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("home/Keychains/passphrase.wrapped").path), set.transcript)
    }

    func testASecretTypedAtTheItemsAddPromptIsNotEchoedAndIsStored() throws {
        let secret = "typed-secret-for-the-mail-account"
        let add = try atTerminal(["items", "add", "--service", "mail", "--account", "ada"], typing: [.init(prompt: "secret: ", line: secret)])

        XCTAssertEqual(add.status, 0, add.transcript)
        XCTAssertFalse(add.transcript.contains(secret), "the terminal showed the typed secret:\n\(add.transcript)")
        let show = try run(["items", "show", "--service", "mail", "--reveal"], input: nil, environment: environment)
        XCTAssertTrue(show.output.contains(secret), show.transcript)
    }

    func testPassphraseSetWithoutARuntimeDirectoryRefusesBeforeAskingForAPassphrase() throws {
        var environment = self.environment
        environment["XDG_RUNTIME_DIR"] = nil
        let set = try PseudoTerminalSession.run(vaultcliURL, ["passphrase", "set", "--argon2-cost", "minimum"], environment: environment, exchanges: [])

        XCTAssertEqual(set.status, 6, set.transcript)
        XCTAssertTrue(set.transcript.contains("XDG_RUNTIME_DIR is not set"), set.transcript)
        XCTAssertFalse(set.transcript.contains("passphrase: "), "asked for a passphrase it could not use:\n\(set.transcript)")
    }

    func testASecondPassphraseSetRefusesBeforeAskingForAPassphrase() throws {
        let first = try run(["passphrase", "set", "--passphrase-fd", "0", "--argon2-cost", "minimum"], input: passphrase + "\n", environment: environment)
        XCTAssertEqual(first.status, 0, first.transcript)

        let second = try atTerminal(["passphrase", "set", "--argon2-cost", "minimum"], typing: [])

        XCTAssertEqual(second.status, 5, second.transcript)
        XCTAssertTrue(second.transcript.contains("already has a passphrase: change it with vaultcli passphrase change"), second.transcript)
        XCTAssertFalse(second.transcript.contains("New passphrase: "), second.transcript)
    }

    func testPassphraseChangeOfAHomeWithoutOneRefusesBeforeAsking() throws {
        let change = try atTerminal(["passphrase", "change", "--argon2-cost", "minimum"], typing: [])

        XCTAssertEqual(change.status, 4, change.transcript)
        XCTAssertTrue(change.transcript.contains("has no passphrase to change"), change.transcript)
        XCTAssertFalse(change.transcript.contains("Current passphrase: "), change.transcript)
    }
}
