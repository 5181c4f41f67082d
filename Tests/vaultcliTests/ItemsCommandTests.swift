import Foundation
import Keyring
import XCTest

/// `vaultcli items`: secrets go in through stdin or a file and come out only with --reveal.
final class ItemsCommandTests: VaultCLITestCase {
    private let secret = "correct-horse-battery-staple"

    private func addToken() throws {
        try keyring().add(KeychainItem(service: "api.example.com", account: "ada", secret: Data(secret.utf8), label: "API token"))
    }

    func testListShowsAttributesInATableButNeverTheSecret() throws {
        try addToken()
        assertRun(try vaultcli("items"), exits: 0, output: """
            CLASS    GROUP                          SERVICE/SERVER   ACCOUNT  LABEL      ACCESSIBLE    SYNC
            generic  ABCDE12345.com.example.shared  api.example.com  ada      API token  whenUnlocked  no

            """)
    }

    func testListJSONHasTheDocumentedShapeWithoutTheSecret() throws {
        try addToken()
        assertRun(try vaultcli("items", "list", "--json"), exits: 0, masked: """
            {"items":[{"accessGroup":"ABCDE12345.com.example.shared","accessibility":"whenUnlocked","account":"ada",\
            "created":"<time>","internal":false,"itemClass":"generic","label":"API token","modified":"<time>",\
            "service":"api.example.com","synchronizable":false}]}

            """)
    }

    func testShowHidesTheSecretWithoutReveal() throws {
        try addToken()
        assertRun(try vaultcli("items", "show", "--service", "api.example.com"), exits: 0, output: """
            ATTRIBUTE       VALUE
            class           generic
            access group    ABCDE12345.com.example.shared
            service         api.example.com
            account         ada
            label           API token
            accessible      whenUnlocked
            synchronizable  no
            secret          28 bytes (hidden; --reveal prints it)

            """)
        assertRun(try vaultcli("items", "show", "--service", "api.example.com", "--json"), exits: 0, masked: """
            {"accessGroup":"ABCDE12345.com.example.shared","accessibility":"whenUnlocked","account":"ada",\
            "created":"<time>","internal":false,"itemClass":"generic","label":"API token","modified":"<time>",\
            "secretBytes":28,"service":"api.example.com","synchronizable":false}

            """)
    }

    func testShowWithRevealPrintsTheSecret() throws {
        try addToken()
        let report = try json(try vaultcli("items", "show", "--service", "api.example.com", "--reveal", "--json"))
        XCTAssertEqual(report["secret"] as? String, secret)
        XCTAssertEqual(report["secretEncoding"] as? String, "utf8")
    }

    func testShowOfNoMatchingItemExits4() throws {
        assertFails(try vaultcli("items", "show", "--service", "nothing.example.com"), with: 4, mentioning: [])
    }

    func testAddReadsTheSecretFromStandardInputAndSetsEveryAttribute() throws {
        let result = try vaultcli(
            "items", "add", "--service", "mail", "--account", "ada", "--group", sharedGroup, "--label", "Mail",
            "--comment", "for the widget", "--description", "app password", "--accessibility", "afterFirstUnlock",
            "--synchronizable", "true", input: "s3cret\n")
        XCTAssertEqual(result.status, 0, result.transcript)
        XCTAssertFalse(result.output.contains("s3cret"))
        let item = try keyring().item(matching: ItemQuery(service: "mail", account: "ada", synchronizable: .any))
        XCTAssertEqual(item.secret, Data("s3cret".utf8), "one trailing newline is removed")
        XCTAssertEqual(item.label, "Mail")
        XCTAssertEqual(item.comment, "for the widget")
        XCTAssertEqual(item.itemDescription, "app password")
        XCTAssertEqual(item.accessibility, .afterFirstUnlock)
        XCTAssertTrue(item.isSynchronizable)
    }

    func testAddReadsTheSecretFromAFileExactly() throws {
        let file = directory.url.appendingPathComponent("secret.bin")
        try Data([0x00, 0xFF, 0x0A]).write(to: file)
        let result = try vaultcli("items", "add", "--class", "internet", "--server", "example.com", "--account", "ada",
                                  "--protocol", "htps", "--port", "443", "--secret-file", file.path)
        XCTAssertEqual(result.status, 0, result.transcript)
        let item = try keyring().item(matching: ItemQuery(.internetPassword, account: "ada", server: "example.com"))
        XCTAssertEqual(item.secret, Data([0x00, 0xFF, 0x0A]))
        XCTAssertEqual(item.port, 443)
    }

    func testAddRefusesASecretGivenAsAnArgument() throws {
        assertRun(try vaultcli("items", "add", "--service", "mail", "--secret", "s3cret"), exits: 2,
                  errors: "vaultcli: Unknown option '--secret'. Did you mean '--server'? (see: vaultcli items add --help)\n")
    }

    func testAddOfADuplicateIsRefusedWith5() throws {
        try addToken()
        assertFails(try vaultcli("items", "add", "--service", "api.example.com", "--account", "ada", input: "x"), with: 5, mentioning: [])
    }

    func testAnUnreadableSecretFileNamesTheFlag() throws {
        assertRun(try vaultcli("items", "add", "--service", "mail", "--secret-file", "/nonexistent"), exits: 2,
                  errors: "vaultcli: --secret-file /nonexistent: cannot be opened (No such file or directory)\n")
    }

    func testUpdateChangesAttributesAndTheSecret() throws {
        try addToken()
        let result = try vaultcli("items", "update", "--service", "api.example.com", "--label", "Renamed", "--new-secret", "--json", input: "rotated")
        XCTAssertEqual(try json(result)["updated"] as? Int, 1)
        let item = try keyring().item(matching: ItemQuery(service: "api.example.com"))
        XCTAssertEqual(item.label, "Renamed")
        XCTAssertEqual(item.secret, Data("rotated".utf8))
    }

    func testUpdateWithNothingToChangeIsAUsageError() throws {
        try addToken()
        assertRun(try vaultcli("items", "update", "--service", "api.example.com"), exits: 2, errors: """
            vaultcli: nothing to change: give an attribute (--label, --comment, --accessibility, ...), --to-group or --new-secret

            """)
    }

    func testDeleteRemovesTheMatchingItem() throws {
        try addToken()
        XCTAssertEqual(try json(try vaultcli("items", "delete", "--service", "api.example.com", "--json"))["deleted"] as? Int, 1)
        XCTAssertThrowsError(try keyring().item(matching: ItemQuery(service: "api.example.com")))
    }

    func testDeleteWithoutASelectionIsRefused() throws {
        try addToken()
        assertRun(try vaultcli("items", "delete"), exits: 2,
                  errors: "vaultcli: name what to delete: --service, --account, --server or --group (refusing to delete every item)\n")
        XCTAssertNoThrow(try keyring().item(matching: ItemQuery(service: "api.example.com")))
    }

    func testAMalformedGroupIsAUsageErrorNamingTheFlagAndTheReason() throws {
        assertRun(try vaultcli("items", "--group", "com.example.shared"), exits: 2, errors: """
            vaultcli: --group: invalid group identifier "com.example.shared": it must start with "group." or a 10-character team id \
            such as "ABCDE12345."

            """)
    }

    func testAddSetsTheInternetPasswordAttributes() throws {
        let result = try vaultcli("items", "add", "--class", "internet", "--server", "example.com", "--account", "ada",
                                  "--authentication-type", "dflt", "--security-domain", "realm", "--generic", "v2", input: "pw")
        XCTAssertEqual(result.status, 0, result.transcript)
        let item = try keyring().item(matching: ItemQuery(.internetPassword, account: "ada", server: "example.com"))
        XCTAssertEqual(item.authenticationType, "dflt")
        XCTAssertEqual(item.securityDomain, "realm")
        XCTAssertEqual(item.generic, Data("v2".utf8))
    }

    func testUpdateToGroupMovesTheItem() throws {
        try addToken()
        let result = try vaultcli("items", "update", "--service", "api.example.com", "--to-group", "\(team).com.example.notes")
        XCTAssertEqual(result.status, 0, result.transcript)
        XCTAssertEqual(try keyring().item(matching: ItemQuery(service: "api.example.com")).accessGroup?.rawValue, "\(team).com.example.notes")
    }

    func testUpdateToAnUnentitledGroupIsRefused() throws {
        try addToken()
        assertFails(try vaultcli("items", "update", "--service", "api.example.com", "--to-group", "OTHER12345.com.example.x"),
                    with: 5, mentioning: ["OTHER12345.com.example.x"])
    }

    func testAddJSONDescribesTheItemWithoutItsSecret() throws {
        let result = try vaultcli("items", "add", "--service", "mail", "--json", input: "s3cret")
        let item = try json(result)
        XCTAssertEqual(item["service"] as? String, "mail")
        XCTAssertEqual(item["accessGroup"] as? String, sharedGroup, "the identity's first access group is the default")
        XCTAssertNil(item["secret"])
        XCTAssertFalse(result.output.contains("s3cret"))
    }

    func testAnEmptySecretFromStandardInputIsRefusedAndNothingIsStored() throws {
        // `echo "$TOKEN" | vaultcli items add` with TOKEN unset sends a lone newline.
        for input in ["", "\n"] {
            let result = try vaultcli("items", "add", "--service", "api.example.com", "--account", "ada", input: input)
            assertFails(result, with: 2, mentioning: ["the secret is empty", "--allow-empty"])
        }
        XCTAssertEqual(try vaultcli("items", "list", "--json").output, #"{"items":[]}"# + "\n")
    }

    func testAnEmptySecretFileIsRefused() throws {
        let file = directory.url.appendingPathComponent("empty")
        try Data().write(to: file)
        assertFails(try vaultcli("items", "add", "--service", "s", "--secret-file", file.path), with: 2, mentioning: ["--secret-file is empty"])
    }

    func testAllowEmptyStoresAnEmptySecret() throws {
        let result = try vaultcli("items", "add", "--service", "api.example.com", "--allow-empty", "--json", input: "\n")
        XCTAssertEqual(try json(result)["service"] as? String, "api.example.com")
        let shown = try json(try vaultcli("items", "show", "--service", "api.example.com", "--json"))
        XCTAssertEqual(shown["secretBytes"] as? Int, 0)
    }

    func testUpdateWithAnEmptyNewSecretIsRefusedAndTheSecretKept() throws {
        try addToken()
        assertFails(try vaultcli("items", "update", "--service", "api.example.com", "--new-secret", input: "\n"), with: 2, mentioning: ["the secret is empty"])
        let shown = try json(try vaultcli("items", "show", "--service", "api.example.com", "--reveal", "--json"))
        XCTAssertEqual(shown["secret"] as? String, secret)
    }

    func testListJSONLeavesOutTheSecretSizeWhichOnlyShowReads() throws {
        try addToken()
        let listed = try XCTUnwrap(try json(try vaultcli("items", "list", "--json"))["items"] as? [[String: Any]])
        XCTAssertEqual(listed.count, 1)
        XCTAssertNil(listed[0]["secretBytes"], "a listing does not decrypt secrets, so it reports no size rather than 0")
        let shown = try json(try vaultcli("items", "show", "--service", "api.example.com", "--json"))
        XCTAssertEqual(shown["secretBytes"] as? Int, secret.utf8.count)
    }
}
