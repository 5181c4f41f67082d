import Foundation
import Keyring
import Vault
import XCTest

/// `vaultcli keys`: rotation, retirement that protects sealed records, export and import.
final class KeysCommandTests: VaultCLITestCase {
    private var groupID: GroupIdentifier { get throws { try GroupIdentifier(validating: group) } }

    func testRotateAddsAPrimaryAndKeepsTheOldKeyActive() throws {
        _ = try keyring().groupKey(for: groupID)
        XCTAssertEqual(try vaultcli("keys", "rotate", "--group", group).status, 0)
        let keys = try XCTUnwrap(try json(try vaultcli("keys", "list", "--group", group, "--json"))["keys"] as? [[String: Any]])
        XCTAssertEqual(keys.map { $0["id"] as? Int }, [1, 2])
        XCTAssertEqual(keys.map { $0["status"] as? String }, ["active", "primary"])
        let table = try vaultcli("keys", "list", "--group", group)
        XCTAssertTrue(table.output.hasPrefix("ID  STATUS"), table.output)
    }

    func testRetireRefusesThePrimaryKeyNamingTheRotateCommand() throws {
        _ = try keyring().groupKey(for: groupID)
        assertRun(try vaultcli("keys", "retire", "--group", group, "--id", "1"), exits: 5, errors: """
            vaultcli: key #1 is the primary key of \(group), which seals every new record: rotate first \
            (vaultcli keys rotate --group \(group)), reseal (vaultcli records reseal --group \(group)), then retire it

            """)
    }

    func testAKeyOfAGroupWithoutKeysNamesTheCommandThatCreatesOne() throws {
        assertRun(try vaultcli("keys", "export", "--group", group, "--id", "1", "--reveal"), exits: 4, errors: """
            vaultcli: no key #1 in \(group): the group has no keyset yet \
            (the first record written creates one; or: vaultcli keys create --group \(group))

            """)
    }

    func testRetireRefusesWhileRecordsAreSealedWithTheKeyNamingThem() throws {
        try vault().write(Note(text: "a"), to: "alpha")
        try vault().write(Note(text: "b"), to: "beta")
        try keyring().rotateKey(in: groupID)
        let result = try vaultcli("keys", "retire", "--group", group, "--id", "1")
        assertFails(result, with: 5, mentioning: ["2 records", "alpha", "beta", "vaultcli records reseal", "--force"])
        XCTAssertEqual(try vault().read(Note.self, from: "alpha"), Note(text: "a"), "the key was not retired")
    }

    func testRetireWithForceRetiresAndReportsTheCount() throws {
        try vault().write(Note(text: "a"), to: "alpha")
        try keyring().rotateKey(in: groupID)
        assertRun(try vaultcli("keys", "retire", "--group", group, "--id", "1", "--force"), exits: 0, output: """
            retired key #1; 1 record is now unreadable: alpha

            """)
        XCTAssertEqual(try keyring().keys(in: groupID).first?.status, .retired)
    }

    func testRetireAfterResealNeedsNoForce() throws {
        try vault().write(Note(text: "a"), to: "alpha")
        try keyring().rotateKey(in: groupID)
        XCTAssertEqual(try vaultcli("records", "reseal", "--group", group).status, 0)
        let result = try vaultcli("keys", "retire", "--group", group, "--id", "1", "--json")
        XCTAssertEqual(try json(result)["unreadableRecords"] as? [String], [])
    }

    func testExportRefusesWithoutRevealAndPrintsNoKey() throws {
        let key = try keyring().exportKey(id: try keyring().groupKey(for: groupID).id, in: groupID)
        let result = try vaultcli("keys", "export", "--group", group, "--id", "1")
        assertFails(result, with: 2, mentioning: ["--reveal"])
        XCTAssertFalse(result.output.contains(key.map { String(format: "%02x", $0) }.joined()))
    }

    func testExportWithRevealPrintsTheKeyInHexOrBase64() throws {
        _ = try keyring().groupKey(for: groupID)
        let key = try keyring().exportKey(id: 1, in: groupID)
        XCTAssertEqual(try vaultcli("keys", "export", "--group", group, "--id", "1", "--reveal").output,
                       key.map { String(format: "%02x", $0) }.joined() + "\n")
        let report = try json(try vaultcli("keys", "export", "--group", group, "--id", "1", "--reveal", "--format", "base64", "--json"))
        XCTAssertEqual(report["key"] as? String, key.base64EncodedString())
        XCTAssertEqual(report["format"] as? String, "base64")
    }

    func testExportOfAnUnknownKeyExits4() throws {
        _ = try keyring().groupKey(for: groupID)
        assertRun(try vaultcli("keys", "export", "--group", group, "--id", "9", "--reveal"), exits: 4, errors: """
            vaultcli: no key #9 in the keyset of \(group) (it holds keys #1...#1): the data names a key this keyset never had; \
            was it sealed for another group or home?

            """)
    }

    func testExportOfARetiredKeyExits5SayingItWasRetired() throws {
        _ = try keyring().groupKey(for: groupID)
        _ = try keyring().rotateKey(in: groupID)
        try keyring().retireKey(id: 1, in: groupID)
        assertFails(try vaultcli("keys", "export", "--group", group, "--id", "1", "--reveal"), with: 5, mentioning: ["#1", "retired"])
    }

    func testImportRestoresAKeySoItsRecordsReadAgainInAFreshHome() throws {
        try vault().write(Note(text: "survives"), to: "note")
        let exported = try vaultcli("keys", "export", "--group", group, "--id", "1", "--reveal").output
        // The keyring is lost; the container with the records survives.
        try FileManager.default.removeItem(at: directory.url.appendingPathComponent("home/Keychains"))
        let result = try vaultcli("keys", "import", "--group", group, "--id", "1", "--reveal", input: exported)
        XCTAssertEqual(result.status, 0, result.transcript)
        XCTAssertEqual(try vault().read(Note.self, from: "note"), Note(text: "survives"))
    }

    func testImportRefusesWithoutReveal() throws {
        assertFails(try vaultcli("keys", "import", "--group", group, "--id", "1", input: String(repeating: "00", count: 32)),
                    with: 2, mentioning: ["--reveal"])
    }

    func testImportRefusesAKeyOfTheWrongLength() throws {
        assertFails(try vaultcli("keys", "import", "--group", group, "--id", "1", "--reveal", input: "abcd"),
                    with: 2, mentioning: ["32-byte", "--format hex"])
    }

    func testImportRefusesDifferentBytesUnderAnExistingId() throws {
        _ = try keyring().groupKey(for: groupID)
        assertFails(try vaultcli("keys", "import", "--group", group, "--id", "1", "--reveal", input: String(repeating: "ab", count: 32)),
                    with: 5, mentioning: ["#1", "never replaces", "import it into a home that has no key #1"])
    }

    func testRotateJSONDescribesTheNewPrimary() throws {
        let key = try json(try vaultcli("keys", "rotate", "--group", group, "--json"))
        XCTAssertEqual(key["id"] as? Int, 1)
        XCTAssertEqual(key["status"] as? String, "primary")
        XCTAssertNotNil(key["created"] as? String)
    }

    func testRetireOfThePrimaryKeyIsRefusedWithoutListingTheRecords() throws {
        for index in 0..<12 { try vault().write(Note(text: "x"), to: "record-\(index)") }
        let result = try vaultcli("keys", "retire", "--group", group, "--id", "1")
        XCTAssertEqual(result.errors, """
            vaultcli: key #1 is the primary key of group.com.example.notes, which seals every new record: rotate first \
            (vaultcli keys rotate --group group.com.example.notes), reseal (vaultcli records reseal --group group.com.example.notes), \
            then retire it

            """)
        XCTAssertEqual(result.status, 5)
    }

    func testRetireRefusalOnAGroupWithManyRecordsNamesTheCountTheFirstFewAndHowToListThem() throws {
        let names = (0..<40).map { "record-\(String(format: "%02d", $0))" }
        for name in names { try vault().write(Note(text: "x"), to: name) }
        try keyring().rotateKey(in: groupID)
        let result = try vaultcli("keys", "retire", "--group", group, "--id", "1")
        let sealed = try vault().records(sealedWithKey: 1)
        XCTAssertEqual(Set(sealed), Set(names))
        XCTAssertEqual(result.errors, """
            vaultcli: key #1 of group.com.example.notes still seals 40 records (\(sealed.prefix(5).joined(separator: ", ")) and 35 more) \
            (list them with: vaultcli records list --group group.com.example.notes): reseal them first \
            (vaultcli records reseal --group group.com.example.notes), or pass --force to make them unreadable for good

            """)
        XCTAssertEqual(result.status, 5)
    }

    func testRetireWithForceOnManyRecordsSummarisesInTextAndListsAllInJSON() throws {
        for index in 0..<7 { try vault().write(Note(text: "x"), to: "record-\(index)") }
        try keyring().rotateKey(in: groupID)
        let sealed = try vault().records(sealedWithKey: 1)
        let result = try vaultcli("keys", "retire", "--group", group, "--id", "1", "--force", "--json")
        XCTAssertEqual(try json(result)["unreadableRecords"] as? [String], sealed)
    }

    func testCreateMakesANewGroupsFirstKeyAndSaysSo() throws {
        let result = try vaultcli("keys", "create", "--group", group)
        XCTAssertEqual(result.output, "created key #1, the primary key of group.com.example.notes\n")
        XCTAssertEqual(result.status, 0, result.transcript)
        XCTAssertEqual(try keyring().keys(in: groupID).map(\.status), [.primary])
    }

    func testCreateIsRefusedWhenTheGroupHasAKey() throws {
        _ = try keyring().groupKey(for: groupID)
        assertRun(try vaultcli("keys", "create", "--group", group), exits: 5, errors: """
            vaultcli: \(group) already has keys (primary: key #1): add a new primary with vaultcli keys rotate --group \(group)

            """)
        XCTAssertEqual(try keyring().keys(in: groupID).count, 1)
    }

    func testRotateOfANewGroupSaysItMadeTheFirstKeyNotANewPrimary() throws {
        let result = try vaultcli("keys", "rotate", "--group", group)
        XCTAssertEqual(result.output, "the group had no key: created its first, key #1 (primary); rotate again to have an older key to retire\n")
    }

    func testCreateRotateResealRetireSucceedsOnANewGroup() throws {
        for arguments in [["keys", "create"], ["keys", "rotate"], ["records", "reseal"], ["keys", "retire", "--id", "1"]] {
            let result = try run(arguments + ["--group", group], input: nil, environment: environment)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.transcript)")
        }
        XCTAssertEqual(try keyring().keys(in: groupID).map(\.status), [.retired, .primary])
    }
}
