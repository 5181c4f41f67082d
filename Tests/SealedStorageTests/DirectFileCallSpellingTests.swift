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

    func testAnInitializerSpelledWithInitIsFound() {
        XCTAssertEqual(calls("""
            let data = try Data.init(contentsOf: url)
            let same: Data = try .init(contentsOf: url)
            let handle = FileHandle.init(forReadingAtPath: path)
            let text = try NSString.init(contentsOfFile: path, encoding: 4)
            """).map { String($0.prefix(2)) }, ["1:", "2:", "3:", "4:"])
    }

    func testACSymbolBoundByNameAndARawSystemCallAreFound() {
        XCTAssertEqual(calls("""
            @_silgen_name("unlink") func remove_(_ path: UnsafePointer<CChar>) -> Int32
            _ = syscall(Int(SYS_unlinkat), AT_FDCWD, path, 0)
            let symbol = dlsym(nil, "unlink")
            """), ["1: @_silgen_name", "2: syscall(", "2: raw syscall", "3: dlsym("])
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

    // MARK: What a shadowing declaration excuses, and what it does not

    private func calls(_ source: String, members: [String: Set<String>] = [:]) -> [String] {
        DirectFileCallScanner.findings(in: source, file: "f", members: members).map { "\($0.line): \($0.call)" }
    }

    func testALocalOfALibcNameExcusesOnlyUsesInItsOwnScope() {
        let source = """
            struct Store {
                func run(name: String) {
                    let unlink = { (name: String) in }
                    unlink(name)
                }
                func other(name: String) { _ = unlink(name) }
            }
            """
        XCTAssertEqual(calls(source), ["6: unlink("])
    }

    func testAShadowedNameCalledWithALibcArgumentIsStillFound() {
        let source = """
            extension Vault {
                func open(_ name: String) {}
                func write(name: String, path: String) { open(name); _ = open(path, O_RDONLY); open("/shared/x") }
            }
            """
        XCTAssertEqual(calls(source), ["3: open(", "3: open("])
    }

    func testParametersNamedAfterLibcFunctionsAreNotCalls() {
        let source = """
            func withContents(_ remove: () -> Void) { remove() }
            let importing = withContents { (bytes: [UInt8], remove: () -> Void) in remove() }
            let linking = links.map { link in link.count }
            """
        XCTAssertEqual(calls(source), [])
    }

    func testAMemberShadowsOnlyInsideTheTypeOfThatQualifiedName() {
        let members = DirectFileCallScanner.memberFunctions(in: "struct Record { func unlink(_ name: String) {} }")
        let source = """
            extension Record { func g(name: String) { unlink(name) } }
            enum Other { struct Record { func g(name: String) { unlink(name) } } }
            extension Other.Record { func h(name: String) { unlink(name) } }
            """
        XCTAssertEqual(calls(source, members: members), ["2: unlink(", "3: unlink("])
    }

    func testTheCStructStatIsNotTheCall() {
        let source = """
            var status = stat()
            let size = MemoryLayout<stat>.size
            func show(_ value: stat) {}
            let functions = [stat, lstat]
            """
        XCTAssertEqual(calls(source), ["4: stat", "4: lstat"])
    }

    // MARK: The lexer

    func testRegexLiteralsAreBlankedAndDivisionIsNot() {
        let source = """
            let a = #/unlink("x")/#
            let b = /chmod(x)/
            let c = total/count; _ = unlink(path)
            let d = x / y / z; _ = chmod(path, mode)
            """
        XCTAssertEqual(calls(source), ["3: unlink(", "4: chmod("])
    }

    func testSQLThatOpensAFileIsFoundInAStringButNotInAComment() {
        let source = """
            // ATTACH DATABASE '/shared/x' AS other
            try run("SELECT 1")
            try run("attach database ? as other")
            """
        XCTAssertEqual(calls(source), ["3: SQL ATTACH"])
    }

    func testAnImplicitMemberOpenIsFoundOnlyWithAPathOrAnAccessMode() {
        let source = """
            state = .open(connection)
            let fd: FileDescriptor = try .open(path, .readOnly)
            return .open(FilePath(name), .writeOnly)
            """
        XCTAssertEqual(calls(source), ["2: .open (swift-system, implicit member)", "3: .open (swift-system, implicit member)"])
    }

    // MARK: The layer's path-based wrappers

    func testAPathBasedSyscallIsFoundAndADescriptorRelativeOneIsNot() {
        let source = """
            _ = try Syscall.open(FilePath(path), .readOnly, options: [])
            _ = try Syscall.open(name, in: directory, .readOnly, options: [])
            try Syscall.unlink(FilePath(path))
            try Syscall.unlink(name, in: directory)
            try Syscall.rename(from, to: destination)
            try Syscall.makeDirectory(FilePath(path), mode: 0o700)
            _ = try Syscall.statusIfPresent(path)
            _ = try Syscall.listDirectory(FilePath(path))
            _ = try Syscall.listDirectory(held.descriptor)
            let remove = Syscall.unlink
            _ = try Syscall.open(FilePath(path), .readOnly, options: [], step: point(in: phase))
            """
        XCTAssertEqual(calls(source), [
            "1: Syscall.open(path)", "3: Syscall.unlink(path)", "5: Syscall.rename(path)", "6: Syscall.makeDirectory(path)",
            "7: Syscall.statusIfPresent(path)", "8: Syscall.listDirectory(path)", "10: Syscall.unlink", "11: Syscall.open(path)",
        ])
    }

    func testSyscallUnderAnotherNameIsFound() {
        XCTAssertEqual(calls("typealias Calls = Syscall\nlet calls = Syscall.self"), ["1: Syscall aliased", "2: Syscall aliased"])
    }

    // MARK: C sources

    func testCFileCallsAreFoundOutsideCommentsStringsMembersAndTheStatStruct() {
        let source = """
            #include <fcntl.h>
            /* unlink(path) is not called here */
            int opened(const char *path) { struct stat st; return open(path, O_RDONLY); }
            void *semaphore(const char *name) { return sem_open(name, O_CREAT, 0600, 1); }
            int member(struct ops *s) { puts("unlink("); return s->open(s) + s.link; }
            """
        XCTAssertEqual(DirectFileCallScanner.cFindings(in: source, file: "f.c").map { "\($0.line): \($0.call)" },
                       ["3: open (C)", "4: sem_open (C)"])
    }

    func testTheScanReadsTheCSourcesAndTheLayersShims() throws {
        let files = try FileLayerScanTests.cSourceFiles()
        XCTAssertTrue(files.contains("Sources/CGroupIPC/Semaphore.c"), "\(files)")
        XCTAssertFalse(files.contains { $0.hasPrefix("Sources/CFileLayer/") }, "the layer's own shim is not scanned")
        XCTAssertTrue(try FileLayerScanTests.fileLayerShims().contains("filelayer_semaphore_create"))
    }
}
