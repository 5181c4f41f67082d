import Foundation
import XCTest

/// The rule of the file layer, enforced: no source of the library outside
/// `Sources/SealedStorage/Files/` (Swift, and C under `Sources/` but for the layer's own
/// CFileLayer) calls the file system directly (libc path and metadata calls, the `sem_open`
/// shims, SQLite's and GRDB's opens, SQL that opens a file, Foundation's, swift-system's and
/// SwiftNIO's file operations, and the layer's own path-based `Syscall` wrappers), except for
/// the reviewed calls of ``allowedCalls``, each with its reason. Those calls resolve a path
/// again at every use, so in a directory another member of the group can
/// change they follow whatever was swapped in between a check and a use; the layer's
/// descriptor-relative operations do not. A module that needs a call the layer lacks adds it to
/// the layer (an `extension Syscall` in `Sources/SealedStorage/Files/`), where it is written once
/// with `O_NOFOLLOW`, an EINTR retry, a typed `Errno` and a fault-injection check.
final class FileLayerScanTests: XCTestCase {
    /// Where the layer lives: the only sources allowed to make the calls.
    static let fileLayer = "Sources/SealedStorage/Files/"

    /// Test-only executables, never linked into the library or vaultcli: they play the other
    /// user, the attacker or the crashing writer in multi-process tests, plant hostile files,
    /// and feed fuzzers, so calling the file system directly is their job. `KeyringTestSupport`
    /// and `vaultcli` are not here: apps link the first, operators run the second.
    static let exemptTargets: [String: String] = [
        "GroupVaultFixture": "test fixture executable: plays another process or user in multi-process tests",
        "GroupMessagingFixture": "test fixture executable: plays a peer, and plants sockets and semaphores",
        "GroupStoresFixture": "test fixture executable: plays another process on the SQLite stores",
        "FixtureSupport": "library of the fixture executables only",
        "FuzzTargets": "fuzzing harness: writes its inputs to scratch files",
        "GroupVaultFuzz": "fuzzing executable: drives FuzzTargets",
    ]

    /// The package root, found from this file's own path (`Tests/SealedStorageTests/...`).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A direct call outside the layer that is deliberate, and why it is safe where it is.
    struct AllowedCall {
        /// The source file, relative to the package root.
        var file: String
        /// The finding's `call`, as the scanner names it.
        var call: String
        /// Why this call may open by path: what it opens, and what makes that safe.
        var reason: String
    }

    /// The reviewed exceptions: each entry excuses exactly one finding of `call` in `file`. An
    /// entry matching nothing is stale and fails the scan too, so the list only shrinks with
    /// the code. An offender that can go through the layer is fixed, never listed here.
    static let allowedCalls: [AllowedCall] = [
        AllowedCall(file: "Sources/GroupDatabase/GroupDatabase.swift", call: "GRDB Database(Queue|Pool)(path:)", reason: """
            GRDB opens its database by path (its own sqlite3_open_v2). The file is vetted relative to the held \
            GroupDatabase directory first (DatabaseFile), and GRDB's prepareDatabase runs DatabaseFile.checkOpened on \
            SQLite's own descriptor before any statement. It cannot move into SealedStorage without making SealedStorage \
            depend on GRDB.
            """),
        AllowedCall(file: "Sources/Keyring/Store/SQLiteConnection.swift", call: "Syscall.openSQLiteDatabase(path)", reason: """
            SQLite has no descriptor-based open: the layer's one open of a database by path, vetted relative to the \
            held Keychains directory before (DatabaseFile) and proved by DatabaseFile.checkOpened on SQLite's own \
            descriptor before the first statement.
            """),
        AllowedCall(file: "Sources/Keyring/Identity/EntitlementsFile.swift", call: "Syscall.open(path)", reason: """
            The entitlements file the user named (GROUPVAULT_ENTITLEMENTS, --entitlements), in a place the user chose, \
            followed as the shell would; checked on the opened descriptor (a bounded regular file) and only read.
            """),
        AllowedCall(file: "Sources/SharedDefaults/PreferencesFile.swift", call: "Syscall.open(path)", reason: """
            The directory of a preferences file the user named for import, opened once by the user's path; the file \
            is then opened relative to it with O_NOFOLLOW and vetted on its descriptor.
            """),
        AllowedCall(file: "Sources/vaultcli/Input/BoundedInput.swift", call: "Syscall.open(path)", reason: """
            A file the operator named on the command line (--secret-file and the like), read once and bounded, \
            followed as the shell would so that process substitution works; nothing is written there.
            """),
        AllowedCall(file: "Sources/vaultcli/PassphraseInput.swift", call: "Syscall.open(path)", reason: """
            /dev/tty, the controlling terminal: a fixed device path, in no shared directory.
            """),
        AllowedCall(file: "Sources/vaultcli/Commands/Doctor/InspectedDirectory.swift", call: "Syscall.open(path)", reason: """
            Doctor's first open of the home root it inspects (the path the operator gave), with O_DIRECTORY and \
            O_NOFOLLOW; everything below it is opened relative to that held descriptor.
            """),
        AllowedCall(file: "Sources/vaultcli/Commands/Doctor/DoctorCommand.swift", call: "Syscall.open(path)", reason: """
            Doctor reads /proc/sys/fs/inotify limits in one read: kernel files, in no shared directory.
            """),
        AllowedCall(file: "Sources/SealedStorage/Watching/DirectoryWatcher+Inotify.swift", call: "Syscall.openDirectory(path)", reason: """
            The watcher is given a path: it opens the watched directory once (O_PATH, O_NOFOLLOW), proves it is its \
            parent's entry of that name, and watches it through /proc/self/fd/N. Only notifications come of it; \
            readers go through the layer.
            """),
        AllowedCall(file: "Sources/SealedStorage/Watching/DirectoryWatcher+Inotify.swift", call: "Syscall.openDirectory(path)", reason: """
            The parent of the watched directory, opened once (O_PATH, O_NOFOLLOW) to prove the directory is its entry \
            and to watch for its replacement through /proc/self/fd/N.
            """),
        AllowedCall(file: "Sources/SealedStorage/Watching/DirectoryWatcher+Inotify.swift", call: "Syscall.inotifyAddWatch(path)", reason: """
            Only without /proc: the held directory cannot be named by /proc/self/fd/N, so its path is watched with \
            IN_DONT_FOLLOW and IN_ONLYDIR. Only notifications come of it.
            """),
        AllowedCall(file: "Sources/SealedStorage/Watching/DirectoryWatcher+Kqueue.swift", call: "Syscall.open(path)", reason: """
            macOS: the watcher's one open of the directory it is given (O_EVTONLY, O_DIRECTORY, O_NOFOLLOW), held for \
            its kqueue. Only notifications come of it.
            """),
    ]

    func testNoSourceOutsideTheFileLayerCallsTheFileSystemDirectly() throws {
        let (offenders, stale) = Self.reconcile(try Self.scanSources(), with: Self.allowedCalls)

        XCTAssertTrue(offenders.isEmpty, """
            \(offenders.count) direct file-system call(s) outside \(Self.fileLayer); route each through \
            Syscall / DirectoryHandle / SafeFile / AtomicFile / FileLock (or add the primitive there):
            \(offenders.map(\.description).joined(separator: "\n"))
            """)
        XCTAssertTrue(stale.isEmpty, """
            \(stale.count) allowed call(s) no longer found: remove them from FileLayerScanTests.allowedCalls:
            \(stale.map { "\($0.file): \($0.call)" }.joined(separator: "\n"))
            """)
    }

    func testEveryAllowedCallNamesItsReason() {
        for allowed in Self.allowedCalls {
            XCTAssertGreaterThan(allowed.reason.split(separator: " ").count, 5, "\(allowed.file): \(allowed.call) needs its reason")
            XCTAssertFalse(allowed.file.hasPrefix(Self.fileLayer), "\(allowed.file) is in the layer, which is not scanned")
        }
    }

    /// The findings no allowed call excuses, and the allowed calls that excuse no finding.
    /// Each allowed call excuses one finding.
    static func reconcile(
        _ findings: [DirectFileCallScanner.Finding], with allowed: [AllowedCall]
    ) -> (offenders: [DirectFileCallScanner.Finding], stale: [AllowedCall]) {
        var unused = allowed
        var offenders: [DirectFileCallScanner.Finding] = []
        for finding in findings {
            if let index = unused.firstIndex(where: { $0.file == finding.file && $0.call == finding.call }) {
                unused.remove(at: index)
            } else {
                offenders.append(finding)
            }
        }
        return (offenders, unused)
    }

    func testAnAllowedCallExcusesOneFindingAndAStaleOneIsReported() {
        let findings = [
            DirectFileCallScanner.Finding(file: "a.swift", line: 1, call: "Syscall.open(path)"),
            DirectFileCallScanner.Finding(file: "a.swift", line: 9, call: "Syscall.open(path)"),
        ]
        let allowed = [
            AllowedCall(file: "a.swift", call: "Syscall.open(path)", reason: "r"),
            AllowedCall(file: "b.swift", call: "unlink(", reason: "r"),
        ]
        let (offenders, stale) = Self.reconcile(findings, with: allowed)
        XCTAssertEqual(offenders.map(\.line), [9])
        XCTAssertEqual(stale.map(\.file), ["b.swift"])
    }

    /// The scan reaches the sources at all: a scan that found no files would pass vacuously.
    func testTheScanReadsTheLibrarySources() throws {
        let files = try Self.sourceFiles()
        XCTAssertTrue(files.contains { $0.hasPrefix("Sources/Vault/") }, "\(files.prefix(5))")
        XCTAssertTrue(files.contains { $0.hasPrefix("Sources/SealedStorage/Watching/") })
        XCTAssertTrue(files.contains { $0.hasPrefix("Sources/vaultcli/") })
        XCTAssertFalse(files.contains { $0.hasPrefix(Self.fileLayer) }, "the layer itself is not scanned")
        XCTAssertFalse(files.contains { $0.hasPrefix("Sources/GroupVaultFixture/") }, "exempt targets are not scanned")
    }

    // MARK: The scanner's own rules

    func testAFreeCallAndAModuleQualifiedCallAreFound() {
        let source = """
            let a = unlink("x")
            _ = Glibc.rename(from, to)
            if chmod(path, 0o600) != 0 {}
            let handle = sqlite3_open_v2(path, &db, flags, nil)
            let semaphore = cgroupipc_semaphore_create(name, 0, mode, 1)
            """
        XCTAssertEqual(DirectFileCallScanner.findings(in: source, file: "f").map(\.call),
                       ["unlink(", "Glibc.rename(", "chmod(", "sqlite3_open", "cgroupipc_semaphore_create"])
        XCTAssertEqual(DirectFileCallScanner.findings(in: source, file: "f").map(\.line), [1, 2, 3, 4, 5])
    }

    func testAFileCallShimHandedOverAsAFunctionPointerIsFound() {
        // GroupSemaphore once passed the sem_open shim to the layer as a pointer: no call
        // syntax, yet the module named a file call the layer should own.
        let source = "handle = try Syscall.openSemaphore(name, mode: mode, initialValue: 1, through: filelayer_semaphore_create)"
        XCTAssertEqual(DirectFileCallScanner.findings(in: source, file: "f").map(\.call), ["filelayer_semaphore_create"])
    }

    func testFoundationAndSwiftSystemFileOperationsAreFound() {
        let source = """
            let data = try Data(contentsOf: url)
            try data.write(to: url, options: .atomic)
            try FileManager.default.removeItem(at: url)
            let exists = FileManager.default.fileExists(atPath: path)
            let fd = try FileDescriptor.open(path, .readOnly)
            let status = try path.stat(followTargetSymlink: false)
            let handle = FileHandle(forReadingAtPath: path)
            """
        XCTAssertEqual(DirectFileCallScanner.findings(in: source, file: "f").map(\.line), [1, 2, 3, 4, 5, 6, 7])
    }

    func testMethodsDeclarationsCommentsAndStringsAreNotCalls() {
        let source = """
            func open(_ name: String) {}
            let box = try XChaCha20Poly1305.open(sealed, using: key)
            try descriptor.close()
            let count = try Syscall.read(descriptor, into: buffer)
            try Syscall.unlink(name, in: directory)
            // unlink("x") in a comment
            /* rename(a, b) /* nested */ chmod(c) */
            let text = "open(\\"quoted\\") and unlink(x)"
            let raw = #"rename("a", "b")"#
            let block = \"\"\"
                mkdir(p)
                \"\"\"
            root.write(to: &output)
            var status = stat()
            enum Command { case open(String) }
            """
        XCTAssertEqual(DirectFileCallScanner.findings(in: source, file: "f"), [])
    }

    func testACallInsideAnInterpolationIsFound() {
        let source = #"let message = "removed: \(unlink(path))""#
        XCTAssertEqual(DirectFileCallScanner.findings(in: source, file: "f").map(\.call), ["unlink("])
    }

    func testAMethodCalledInsideItsOwnTypeIsNotLibcs() {
        let source = """
            final class SQLiteConnection {
                func run() { try bind(values, to: statement) }
                private func bind(_ values: [Int], to statement: OpaquePointer) {}
            }
            """
        XCTAssertEqual(DirectFileCallScanner.findings(in: source, file: "f"), [])
    }

    /// `Vault.open(_:as:)` is declared in one file and called in another: inside `Vault` the
    /// call is the member. The same name called in another type, or with `O_` flags, is libc's.
    func testAMemberDeclaredInAnotherFileOfTheModuleIsTheTypesOwn() {
        let members = DirectFileCallScanner.memberFunctions(in: "extension Vault { func open(_ bytes: [UInt8], as name: String) {} }")
        let source = """
            extension Vault {
                func write() {
                    _ = try open(bytes, as: name)
                    let fd = open(path, O_RDONLY | O_CLOEXEC)
                }
            }
            struct Server {
                func start() { unlink(path); _ = open(path) }
            }
            """
        XCTAssertEqual(DirectFileCallScanner.findings(in: source, file: "f", members: members).map(\.line), [4, 8, 8])
    }

    func testAMethodOfAnotherTypeNamedAsAFileManagerOperationIsNotOne() {
        let source = """
            try GroupDatabase.createFile(path, sharing: sharing)
            try FileManager.default.createFile(atPath: path, contents: nil)
            """
        XCTAssertEqual(DirectFileCallScanner.findings(in: source, file: "f").map(\.line), [2])
    }

    // MARK: Scanning

    /// Every `.swift` file under `Sources/`, relative to the package root, outside the file
    /// layer and the exempt targets, sorted.
    static func sourceFiles() throws -> [String] {
        try files(under: "Sources", extensions: ["swift"])
    }

    /// Every C source (`.c`, `.h`) under `Sources/`, relative to the package root, outside
    /// CFileLayer (the layer's own shim, called only from the layer) and the exempt targets,
    /// sorted.
    static func cSourceFiles() throws -> [String] {
        try files(under: "Sources", extensions: ["c", "h"]).filter { target(of: $0) != "CFileLayer" }
    }

    /// The functions CFileLayer's headers declare: the layer's C shims, which only the layer
    /// may name.
    static func fileLayerShims() throws -> [String] {
        let headers = try files(under: "Sources/CFileLayer", extensions: ["h"], exempting: false)
        var names: Set<String> = []
        for header in headers {
            let code = DirectFileCallScanner.stripCComments(try String(contentsOf: packageRoot.appendingPathComponent(header), encoding: .utf8))
            for match in code.matches(of: /\b([a-z][a-z0-9]*_\w+)\s*\(/) { names.insert(String(match.1)) }
        }
        return names.sorted()
    }

    /// Every finding of the Swift and C sources, allowed or not.
    static func scanSources() throws -> [DirectFileCallScanner.Finding] {
        let files = try sourceFiles()
        let texts = try files.map { try String(contentsOf: packageRoot.appendingPathComponent($0), encoding: .utf8) }
        let shims = try fileLayerShims()
        // The member functions of each module's types, by target: inside those types an
        // unqualified call of one of those names is the member, not libc's.
        var members: [String: [String: Set<String>]] = [:]
        for (file, text) in zip(files, texts) {
            members[target(of: file), default: [:]].merge(DirectFileCallScanner.memberFunctions(in: text)) { $0.union($1) }
        }
        let swift = zip(files, texts).flatMap { file, text in
            DirectFileCallScanner.findings(in: text, file: file, members: members[target(of: file)] ?? [:], shims: shims)
        }
        let c = try cSourceFiles().flatMap { file in
            DirectFileCallScanner.cFindings(in: try String(contentsOf: packageRoot.appendingPathComponent(file), encoding: .utf8), file: file)
        }
        return swift + c
    }

    /// The files under `folder` with one of `extensions`, relative to the package root, outside
    /// the file layer and (when `exempting`) the exempt targets, sorted.
    static func files(under folder: String, extensions: Set<String>, exempting: Bool = true) throws -> [String] {
        let directory = packageRoot.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: directory.path])
        }
        let rootPath = packageRoot.standardizedFileURL.path + "/"
        var files: [String] = []
        for case let url as URL in walker where extensions.contains(url.pathExtension) {
            let relative = String(url.standardizedFileURL.path.dropFirst(rootPath.count))
            guard !relative.hasPrefix(fileLayer), !exempting || exemptTargets[target(of: relative)] == nil else { continue }
            files.append(relative)
        }
        return files.sorted()
    }

    /// `Sources/<target>/...` → `<target>`.
    static func target(of file: String) -> String {
        file.split(separator: "/").dropFirst().first.map(String.init) ?? ""
    }
}
