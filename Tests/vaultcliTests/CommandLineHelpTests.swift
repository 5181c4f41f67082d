import Foundation
import XCTest

/// What a person sees when the command line is wrong or they ask for help.
final class CommandLineHelpTests: VaultCLITestCase {
    func testAMistypedSubcommandGetsASuggestion() throws {
        let result = try vaultcli("item", "list")
        XCTAssertEqual(result.errors, "vaultcli: 2 unexpected arguments: 'item', 'list' (did you mean 'items'?) (see: vaultcli --help)\n")
        XCTAssertEqual(result.status, 2)
    }

    func testAMistypedNestedSubcommandGetsASuggestion() throws {
        let result = try vaultcli("keys", "rotat", "--group", group)
        XCTAssertEqual(result.status, 2, result.transcript)
        XCTAssertTrue(result.errors.contains("(did you mean 'rotate'?)"), result.errors)
    }

    func testAWordFarFromEverySubcommandGetsNoSuggestion() throws {
        let result = try vaultcli("frobnicate")
        XCTAssertEqual(result.status, 2, result.transcript)
        XCTAssertFalse(result.errors.contains("did you mean"), result.errors)
    }

    func testHelpTextIsWrappedOnceByTheParserNotPreWrapped() throws {
        // Written as one paragraph and wrapped by ArgumentParser at 80 columns: every line but
        // the paragraph's last is filled close to the width (pre-wrapped text re-wrapped left
        // ragged lines of a few words).
        let help = try vaultcli("--help")
        XCTAssertEqual(help.status, 0, help.transcript)
        let overview = help.output.components(separatedBy: "\n\n")[1]
        XCTAssertEqual(overview, """
            Acts as the process identity from GROUPVAULT_ENTITLEMENTS, GROUPVAULT_TEAM_ID
            and GROUPVAULT_BUNDLE_ID over the storage at GROUPVAULT_HOME, like any
            GroupVault process; the options --entitlements, --team-id, --bundle-id and
            --home override them. Secrets and key bytes are printed only with --reveal.
            Every command takes --json. Exit codes: 0 ok, 1 findings, 2 usage, 3 no
            identity configured, 4 not found, 5 refused, 6 failed (docs/CLI.md).
            """)
    }

    func testItemsAddHelpShowsTheDefaultClassByItsName() throws {
        let help = try vaultcli("items", "add", "--help")
        XCTAssertTrue(help.output.contains("(values: generic, internet; default:\n                          generic)"), help.output)
        XCTAssertFalse(help.output.contains("genp"), help.output)
    }

    func testCompletionScriptsAreGeneratedForEachShellWithTheSubcommands() throws {
        for shell in ["bash", "zsh", "fish"] {
            let script = try vaultcli("--generate-completion-script", shell)
            XCTAssertEqual(script.status, 0, "\(shell): \(script.transcript)")
            for subcommand in ["items", "keys", "records", "defaults", "notify", "channel"] {
                XCTAssertTrue(script.output.contains(subcommand), "\(shell) completes \(subcommand)")
            }
        }
    }

    func testTheHelpDumpTheManPageIsMadeFromDescribesEveryCommand() throws {
        // `make man` (swift-argument-parser's generate-manual plugin) reads this dump.
        let dump = try vaultcli("--experimental-dump-help")
        XCTAssertEqual(dump.status, 0, dump.transcript)
        let root = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [String: Any])
        let command = try XCTUnwrap(root["command"] as? [String: Any])
        let names = (command["subcommands"] as? [[String: Any]] ?? []).compactMap { $0["commandName"] as? String }
        // A superset: an area that registers its command (sync) adds to the page.
        let documented: Set = ["identity", "lock-state", "passphrase", "unlock", "lock", "items", "keys", "records",
                               "doctor", "notify", "channel", "defaults", "help"]
        XCTAssertTrue(Set(names).isSuperset(of: documented), "missing: \(documented.subtracting(names))")
    }
}
