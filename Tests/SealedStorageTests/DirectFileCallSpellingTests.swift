import XCTest

/// The source scan's rules against the spellings Swift accepts for a direct file call: each
/// snippet type-checks with `swiftc -typecheck` (as a red-team pass showed, the scan once
/// missed every one), and each must be reported, so a later module cannot bring a by-path call
/// in a shared directory back unnoticed by ``FileLayerScanTests``.
final class DirectFileCallSpellingTests: XCTestCase {
    private func assertFound(_ source: String, file: StaticString = #filePath, line: UInt = #line) {
        let findings = DirectFileCallScanner.findings(in: source, file: "Sources/Planted/Planted.swift")
        XCTAssertFalse(findings.isEmpty, "the scan missed a direct file call in:\n\(source)", file: file, line: line)
    }

    // MARK: libc, spelled so the regexes miss it

    func testABacktickQuotedLibcCallIsFound() {
        assertFound(#"func f() { _ = `unlink`("/shared/x") }"#)
    }

    func testALibcFunctionTakenAsAValueAndCalledLaterIsFound() {
        assertFound(#"func f() { let remove = unlink; _ = remove("/shared/x") }"#)
    }

    func testALibcFunctionCalledThroughParenthesesIsFound() {
        assertFound(#"func f() { _ = (chmod)("/shared/x", 0o777) }"#)
    }

    func testALibcCallQualifiedWithTheSwiftGlibcModuleIsFound() {
        assertFound("import SwiftGlibc\n" + #"func f() { _ = SwiftGlibc.unlink("/shared/x") }"#)
    }

    func testALibcCallInAFileThatDeclaresAVariableOfTheSameNameElsewhereIsFound() {
        // `locals` is file-wide: one `let unlink` in any function hides every `unlink(path)`
        // of the file, though Swift resolves the call in `f` to libc's.
        assertFound("""
            func g() { let unlink = 0; _ = unlink }
            func f() { _ = unlink("/shared/x") }
            """)
    }

    func testStdioRemoveIsFound() {
        assertFound(#"func f() { _ = remove("/shared/x") }"#)
    }

    func testMkstempAndMkdtempAreFound() {
        assertFound(#"func f() { var t = Array("/shared/xXXXXXX".utf8CString); _ = mkstemp(&t) }"#)
        assertFound(#"func f() { var t = Array("/shared/xXXXXXX".utf8CString); _ = mkdtemp(&t) }"#)
    }

    func testChdirIsFound() {
        assertFound(#"func f() { _ = chdir("/shared") }"#)
    }

    // MARK: Foundation and swift-system, spelled so the patterns miss them

    func testNSStringContentsOfFileIsFound() {
        assertFound(#"func f() { _ = try? NSString(contentsOfFile: "/shared/x", encoding: 4) }"#)
    }

    func testNSDictionaryAndNSArrayContentsOfFileAreFound() {
        assertFound(#"func f() { _ = NSDictionary(contentsOfFile: "/shared/x") }"#)
        assertFound(#"func f() { _ = NSArray(contentsOfFile: "/shared/x") }"#)
    }

    func testFileStreamsAreFound() {
        assertFound(#"func f() { _ = InputStream(fileAtPath: "/shared/x") }"#)
        assertFound(#"func f() { _ = OutputStream(toFileAtPath: "/shared/x", append: true) }"#)
    }

    func testFileManagersURLForCreatingADirectoryIsFound() {
        assertFound(#"func f() { _ = try? FileManager.default.url(for: .cachesDirectory, in: .userDomainMask, appropriateFor: nil, create: true) }"#)
    }

    func testResolvingSymlinksInPathIsFound() {
        // realpath by another name: lstat and readlink of every component.
        assertFound(#"func f() { _ = URL(fileURLWithPath: "/shared/x").resolvingSymlinksInPath() }"#)
    }

    func testCheckResourceIsReachableIsFound() {
        assertFound(#"func f() { _ = try? URL(fileURLWithPath: "/shared/x").checkResourceIsReachable() }"#)
    }

    func testSwiftSystemOpenAsAnImplicitMemberIsFound() {
        assertFound(#"func f() throws { let fd: FileDescriptor = try .open("/shared/x", .readOnly); try fd.close() }"#)
    }

    func testAProcessRunByPathIsFound() {
        assertFound(#"func f() throws { let p = Process(); p.executableURL = URL(fileURLWithPath: "/shared/tool"); try p.run() }"#)
    }

    func testDlopenOfAPathIsFound() {
        assertFound(#"func f() { _ = dlopen("/shared/plugin.so", RTLD_NOW) }"#)
    }

    // MARK: Opens by path through the package's other dependencies and through SQL

    func testAGRDBDatabaseOpenedByPathIsFound() {
        // GRDB calls sqlite3_open_v2 itself: the layer's vetting and checkOpened are skipped.
        assertFound(#"func f() throws { _ = try DatabaseQueue(path: "/shared/x.sqlite") }"#)
        assertFound(#"func f() throws { _ = try DatabasePool(path: "/shared/x.sqlite", configuration: c) }"#)
    }

    func testSQLThatOpensAFileByPathIsFound() {
        // The scanner blanks string literals, so a file SQLite opens from SQL is invisible.
        assertFound(#"func f() throws { try connection.execute("ATTACH DATABASE '/shared/other.db' AS other") }"#)
        assertFound(#"func f() throws { try connection.execute("VACUUM INTO '/shared/copy.db'") }"#)
    }

    func testANIOFileHandleOpenedByPathIsFound() {
        assertFound(#"func f() throws { _ = try NIOFileHandle(path: "/shared/x") }"#)
    }

    func testANIOBindToAUnixSocketAddressIsFound() {
        // bind(2) by path, without the `unixDomainSocketPath:` label on the bind call itself.
        assertFound(#"func f() throws { let a = try SocketAddress(unixDomainSocketPath: "/shared/s"); _ = bootstrap.bind(to: a) }"#)
    }

    // MARK: The lexer

    func testACallAfterARegexLiteralHoldingAQuoteIsFound() {
        // Swift 6 mode has regex literals; one holding `"` makes the scanner take the rest of
        // the line, and the next lines up to the next quote, for a string, and blank them.
        assertFound("""
            func f() {
                let quote = #/"/#
                _ = unlink("/shared/x")
            }
            """)
        assertFound("""
            func f() {
                let quote = /"/
                _ = chmod("/shared/y", 0o777)
            }
            """)
    }

    func testACallInATypeThatOnlySharesItsNameWithOneDeclaringTheFunctionIsFound() {
        // Member shadowing is keyed by the type's simple name across the module: `Other.Record`
        // has no `unlink`, so Swift calls libc's, but `Record`'s own `func unlink()` hides it.
        assertFound("""
            struct Record { func unlink() {} }
            enum Other {
                struct Record {
                    func g() { _ = unlink("/shared/x") }
                }
            }
            """)
    }
}
