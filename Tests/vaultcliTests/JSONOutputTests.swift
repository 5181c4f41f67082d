import Foundation
import XCTest

/// `--json`: one format for every command (one object per line), and errors as JSON on
/// standard error.
final class JSONOutputTests: VaultCLITestCase {
    func testEveryDocumentIsOneLine() throws {
        try vault().write(Note(text: "x"), to: "note")
        for command in [["keys", "list", "--group", group], ["records", "list", "--group", group], ["items", "list"],
                        ["identity"], ["records", "verify", "--group", group], ["defaults", "list", "--group", group]] {
            let result = try run(command + ["--json"], input: nil, environment: environment)
            XCTAssertEqual(result.status, 0, "\(command): \(result.transcript)")
            XCTAssertEqual(result.output.filter { $0 == "\n" }.count, 1, "\(command): one line: \(result.output)")
            XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "\(command)")
        }
    }

    func testAnErrorWithJSONIsAJSONObjectOnStandardError() throws {
        let result = try vaultcli("records", "show", "--group", group, "absent", "--json")
        XCTAssertEqual(result.status, 4)
        XCTAssertEqual(result.output, "")
        XCTAssertEqual(result.errors, #"{"code":"notFound","message":"notFound: record \"absent\" of group.com.example.notes does not exist; it has not been written yet","status":4}"# + "\n")
    }

    func testAUsageErrorWithJSONNamesTheHelpAsItsRemedy() throws {
        let result = try vaultcli("keys", "list", "--json")
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.errors, #"{"code":"usage","message":"Missing expected argument '--group <group>' (see: vaultcli keys list --help)","remedy":"vaultcli keys list --help","status":2}"# + "\n")
    }

    func testARefusalWithJSONCarriesTheCommandThatFixesIt() throws {
        try vault().write(Note(text: "x"), to: "note")
        let result = try vaultcli("keys", "retire", "--group", group, "--id", "1", "--json")
        XCTAssertEqual(result.status, 5, result.transcript)
        let error = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.errors.utf8)) as? [String: Any])
        XCTAssertEqual(error["code"] as? String, "refused")
        XCTAssertEqual(error["status"] as? Int, 5)
        XCTAssertEqual(error["remedy"] as? String, "vaultcli keys rotate --group group.com.example.notes")
    }

    func testALibraryRefusalWithJSONCarriesTheCommandForItsRemedy() throws {
        XCTAssertEqual(try vaultcli("lock-state", "beforeFirstUnlock").status, 0)
        let result = try vaultcli("keys", "list", "--group", group, "--json")
        XCTAssertEqual(result.status, 5, result.transcript)
        let error = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.errors.utf8)) as? [String: Any])
        XCTAssertEqual(error["code"] as? String, "refused")
        XCTAssertEqual(error["remedy"] as? String, "vaultcli lock-state unlocked")
        XCTAssertEqual((error["message"] as? String)?.hasSuffix("unlock it once (run: vaultcli lock-state unlocked)"), true, result.errors)
    }

    func testAnErrorWithoutJSONStaysOneTextLine() throws {
        let result = try vaultcli("records", "show", "--group", group, "absent")
        XCTAssertEqual(result.errors, "vaultcli: notFound: record \"absent\" of group.com.example.notes does not exist; it has not been written yet\n")
    }
}
