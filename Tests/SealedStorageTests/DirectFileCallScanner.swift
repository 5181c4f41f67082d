import Foundation

/// Finds direct file-system calls in Swift (and C) source: the calls that must go through the
/// file layer (`Sources/SealedStorage/Files`, the `Syscall` enum and the types on it) everywhere
/// else.
///
/// It reads text, not types, so its rules are lexical. They lean towards reporting: a spelling
/// it cannot prove harmless is a finding, to be routed through the layer or, for the few
/// deliberate cases, named with a reason in the scan's allowlist.
/// - Comments, the literal parts of string literals (their quotes stay, so "an argument is a
///   string literal" can be seen) and regex literals (`/.../`, `#/.../#`) are blanked first,
///   keeping line numbers; interpolations stay code. Backticks are dropped: `` `unlink` `` is
///   `unlink`.
/// - A libc name counts wherever it is used as a name, not only when called: `unlink(`,
///   `(chmod)(`, `let f = unlink`, and through its module (`Glibc.`, `SwiftGlibc.`, `Darwin.`,
///   `Musl.`, `Foundation.`, `CGroupIPC.`, `CFileLayer.`, `CSQLite.`). Not as a member
///   (`.open(`), where it is declared (`func open(`, `case open`, `let link`), or as an
///   argument label or parameter name (`(remove: ...`).
/// - A declaration of the same name shadows libc's only in its own scope (the braces around a
///   `let`/`var`/`func`, a function's body for its parameters, a closure's for its
///   parameters, the type of that exact qualified name for its member functions) and only for
///   a use that passes nothing typical of a libc call (a string literal, an `O_`/`AT_`/`S_I`
///   constant, an octal mode, an `&` pointer, `$0`, a `FilePath`, a C string).
/// - Foundation, swift-system, GRDB, SwiftNIO and SQL (`ATTACH`, `VACUUM INTO`) file operations
///   are matched by their spellings, and so are the layer's own path-based `Syscall` wrappers,
///   which resolve a path again at every use just like libc does.
/// - Reads, writes and closes of a descriptor are not path operations and are not listed.
struct DirectFileCallScanner {
    /// One direct call: where, and what.
    struct Finding: Equatable, CustomStringConvertible {
        var file: String
        var line: Int
        var call: String

        var description: String { "\(file):\(line): \(call)" }
    }

    /// The libc functions that take a path, act on a file's metadata, or run or load a file by
    /// path, from the rule of the file layer (docs/ARCHITECTURE.md).
    static let libcFunctions: [String] = [
        "open", "openat", "creat", "fopen", "freopen", "chmod", "fchmod", "fchmodat", "chown", "fchown", "fchownat", "lchown",
        "unlink", "unlinkat", "remove", "rename", "renameat", "renameat2", "mkdir", "mkdirat", "rmdir", "link", "linkat",
        "symlink", "symlinkat", "stat", "lstat", "fstat", "fstatat", "statx", "statvfs", "statfs", "access", "faccessat",
        "truncate", "ftruncate", "bind", "mkfifo", "mkfifoat", "mknod", "mknodat", "opendir", "realpath", "readlink",
        "readlinkat", "utime", "utimes", "lutimes", "utimensat", "futimens", "mkstemp", "mkstemps", "mkostemp", "mkdtemp",
        "tmpfile", "tmpnam", "tempnam", "chdir", "chroot", "getxattr", "lgetxattr", "setxattr", "lsetxattr", "listxattr",
        "removexattr", "sem_open", "sem_unlink", "shm_open", "shm_unlink", "inotify_add_watch", "dlopen", "popen",
        "posix_spawn", "posix_spawnp", "execv", "execve", "execvp", "execl", "execlp", "dlsym", "syscall",
    ]

    /// libc names that are also C struct types (`stat()`, `[stat]`, `: stat`): used as a type
    /// they are not the call.
    static let structNames: Set<String> = ["stat", "statvfs", "statfs"]

    /// The modules a libc name can be qualified with.
    static let libcModules = ["Glibc", "SwiftGlibc", "Darwin", "Musl", "Foundation", "CGroupIPC", "CFileLayer", "CSQLite"]

    /// The C shims that wrap file calls Swift cannot make (the variadic `sem_open`): CFileLayer's
    /// own, and the names CGroupIPC's wrappers had. Their names are unique, so any mention is a
    /// finding, not only a call: passing one as a function pointer is calling it by proxy. The
    /// scan adds whatever else `Sources/CFileLayer/include` declares.
    static let shimFunctions: [String] = [
        "filelayer_semaphore_create", "cgroupipc_semaphore_create", "cgroupipc_semaphore_open",
    ]

    /// The layer's wrappers that take a path, not a held directory and a name: a path is
    /// resolved again at every use, so outside the layer each use is a finding unless the
    /// descriptor-relative overload is meant, known by its label (`in:`, `opened:`).
    static let pathBasedSyscalls: [String] = [
        "open", "openDirectory", "unlink", "rename", "makeDirectory", "statusIfPresent", "typedStatus", "listDirectory",
        "inotifyAddWatch", "bind", "connect", "openSQLiteDatabase",
    ]

    /// Foundation's, swift-system's, GRDB's and SwiftNIO's file operations, as (pattern, what to
    /// call it).
    static let apiPatterns: [(pattern: String, call: String)] = [
        (#"\bsqlite3_(?:open\w*|load_extension|enable_load_extension)\b"#, "sqlite3_open"),
        (#"\bFileDescriptor\s*\.\s*open\s*\("#, "FileDescriptor.open"),
        // FilePath.stat / FileDescriptor.stat (swift-system): any `.stat(` method call.
        (#"\.\s*stat\s*\("#, ".stat (swift-system)"),
        // `.init` spelled out or implicit (`let d: Data = try .init(contentsOf: url)`) is the same.
        (#"(?:\b(?:NS|NSMutable)?(?:Data|String|Dictionary|Array|AttributedString|XMLParser)\s*(?:\.\s*init\s*)?|\.\s*init\s*)\(\s*contentsOf\s*:|\(\s*contentsOf(?:File|URL)\s*:"#, "contentsOf(File):"),
        (#"\bFileWrapper\s*(?:\.\s*init\s*)?\(\s*(?:url|path)\s*:"#, "FileWrapper"),
        // Data.write(to: URL) and String.write(toFile:); not an `inout` sink (`write(to: &output)`).
        (#"\.\s*write\s*\(\s*to\s*:(?!\s*&)"#, ".write(to:)"),
        (#"\.\s*write\s*\(\s*toFile\s*:"#, ".write(toFile:)"),
        (#"\bFileHandle\s*(?:\.\s*init\s*)?\(\s*for\w*\s*:"#, "FileHandle(for...:)"),
        (#"\b(?:Input|Output)Stream\s*(?:\.\s*init\s*)?\(\s*(?:fileAtPath|toFileAtPath|url|fileURL)\s*:"#, "file stream"),
        // FileManager: by the labels of its file operations, so a method of the same name on
        // another type (`GroupDatabase.createFile(path, sharing:)`) is not taken for one.
        (#"\.\s*(createDirectory|createFile|removeItem|moveItem|copyItem|linkItem|createSymbolicLink|trashItem|contents|contentsOfDirectory|subpathsOfDirectory|subpaths|enumerator|attributesOfItem|attributesOfFileSystem|fileExists|isReadableFile|isWritableFile|isExecutableFile|isDeletableFile|destinationOfSymbolicLink|setAttributes)\s*\(\s*(?:at|atPath|forPath)\s*:"#, "FileManager"),
        (#"\.\s*(replaceItemAt|changeCurrentDirectoryPath)\s*\(|\.\s*replaceItem\s*\(\s*at\s*:|ofItemAtPath\s*:|\.\s*contentsEqual\s*\(\s*atPath\s*:"#, "FileManager"),
        // FileManager.url(for:in:appropriateFor:create:) makes and resolves directories.
        (#"\.\s*url\s*\(\s*for\s*:"#, "FileManager.url(for:)"),
        (#"\.\s*resolv(?:ing|e)SymlinksInPath\b"#, "resolvingSymlinksInPath"),
        (#"\.\s*check(?:Resource|PromisedItem)IsReachable\s*\("#, "checkResourceIsReachable"),
        (#"\.\s*resourceValues\s*\(\s*forKeys\s*:"#, "URL.resourceValues"),
        // Launching a program by path.
        (#"\bProcess\s*(?:\(|\.\s*(?:init|run|launchedProcess)\b)|\.\s*(?:executableURL|launchPath)\s*="#, "Process"),
        // GRDB opens by path with its own sqlite3_open_v2.
        (#"\bDatabase(?:Queue|Pool)\s*(?:\.\s*init\s*)?\(\s*path\s*:"#, "GRDB Database(Queue|Pool)(path:)"),
        // SwiftNIO: files and sockets by path.
        (#"\bNIOFileHandle\s*(?:\.\s*init\s*)?\(\s*(?:path|_deprecatedPath)\s*:"#, "NIOFileHandle(path:)"),
        (#"\.\s*openFile\s*\(\s*(?:path|_deprecatedPath|forReadingAt|forWritingAt|forReadingAndWritingAt)\s*:"#, "NIO openFile"),
        (#"\.\s*bind\s*\(\s*(?:unixDomainSocketPath|to)\s*:"#, "NIO bind"),
        // A Swift name bound to any C symbol (`@_silgen_name("unlink")`), and raw system calls.
        (#"@_(?:silgen_name|extern|cdecl)\b"#, "@_silgen_name"),
        (#"\bSYS_\w+"#, "raw syscall"),
    ]

    /// SQL that makes SQLite open a file by a path the statement names, matched in string
    /// literals.
    static let sqlPatterns: [(pattern: String, call: String)] = [
        (#"(?i)\bATTACH\s+(?:DATABASE\s+)?\S+\s+AS\b"#, "SQL ATTACH"),
        (#"(?i)\bVACUUM\s+(?:\w+\s+)?INTO\b"#, "SQL VACUUM INTO"),
        (#"(?i)\bload_extension\s*\("#, "SQL load_extension"),
    ]

    private static func regex(_ pattern: String) -> NSRegularExpression { try! NSRegularExpression(pattern: pattern) }

    private static let libcReference = regex(
        #"(?:\b("# + libcModules.joined(separator: "|") + #")\s*\.\s*|(?<![\w.$]))("# + libcFunctions.joined(separator: "|") + #")\b"#)
    private static let syscallReference = regex(#"\bSyscall\s*\.\s*("# + pathBasedSyscalls.joined(separator: "|") + #")\b"#)
    private static let syscallAlias = regex(#"\bSyscall\b\s*(?:\.\s*(?:self|Type)\b|(?!\.))"#)
    /// swift-system's `FileDescriptor.open` written as an implicit member: `.open(` with no receiver.
    private static let implicitOpen = regex(#"(?:^|[=(,:\[{;]|\breturn|\btry[?!]?|\bawait)\s*\.\s*open\s*\("#)
    private static let pathArgument = regex(#""|\bFilePath\b|\.\s*(?:readOnly|writeOnly|readWrite)\b|\b(?:options|permissions)\s*:|[pP]ath\b"#)
    /// What a libc call passes and a method of the same name would not: a shadowing declaration
    /// does not excuse a call with one of these.
    private static let libcArgument = regex(
        #""|\b(?:O|AT|S_I|RTLD)_[A-Z]|\b[FRWX]_OK\b|\b0o[0-7]|\bmode_t\b|(?:^|[(,:])\s*&(?!&)|\$0|\bFilePath\b|\bwith(?:CString|PlatformString|UnsafeFileSystemRepresentation)\b|\bUnsafe(?:Mutable)?(?:Raw)?Pointer\b|\bfileSystemRepresentation\b"#)
    private static let declarationBefore = regex(
        #"(?:\b(?:func|let|var|for|typealias|associatedtype|struct|class|enum|actor|protocol|case(?:\s+let|\s+var)?)\s+|\bcase\s+[^\n:=.]*,\s*)$"#)
    private static let labelBefore = regex(#"(?:[(,]|\b\w+)\s*$"#)
    private static let typePositionBefore = regex(#"(?::|->|<|\bas[?!]?|\bis)\s*$"#)
    private static let typePositionAfter = regex(#"^\s*(?:\(\s*\)|>|\.\s*self\b|[?!])"#)
    private static let localDeclaration = regex(#"(?:\b(?:let|var|func|for)\s+|\bcase\s+(?:let\s+|var\s+)?)(\w+)"#)
    private static let functionDeclaration = regex(#"\bfunc\s+(\w+)"#)
    private static let signatureStart = regex(#"\b(?:func\s+\w+|init[?!]?|subscript)\s*(?:<[^>{}]*>)?\s*\("#)
    private static let closureHeader = regex(
        #"^\s*(?:\[[^\]\n]*\][ \t]*)?(?:\(((?:[^()\n]|\([^()\n]*\))*)\)|(\w+(?:[ \t]*,[ \t]*\w+)*))[ \t]*(?:async[ \t]+)?(?:throws[ \t]*(?:\([^)\n]*\))?[ \t]*)?(?:->[^{}\n]*?)?[ \t]\bin\b"#)
    private static let typeDeclaration = regex(#"\b(?:struct|class|enum|actor|extension|protocol)\s+([\w.]+)[^{;]*\{"#)

    private static let apis: [(NSRegularExpression, String)] = apiPatterns.map { (regex($0.pattern), $0.call) }
    private static let sqls: [(NSRegularExpression, String)] = sqlPatterns.map { (regex($0.pattern), $0.call) }

    /// The functions `source` declares as members of each type (or extension of it), by the
    /// type's qualified name (`Outer.Inner`): within that type, in any file of the module, an
    /// unqualified call of one of those names is the type's own, as Swift's lookup finds the
    /// member before the global function.
    static func memberFunctions(in source: String) -> [String: Set<String>] {
        let code = stripCommentsAndStrings(source) as NSString
        let scopes = Scopes(code)
        var members: [String: Set<String>] = [:]
        for match in functionDeclaration.matches(in: code as String, range: NSRange(location: 0, length: code.length)) {
            let name = code.substring(with: match.range(at: 1))
            if let type = scopes.types(enclosing: match.range.location).last { members[type, default: []].insert(name) }
        }
        return members
    }

    /// The direct calls in `source`, named `file` in the findings; `members` are the member
    /// functions of its module's types (``memberFunctions(in:)`` of each of its files, merged);
    /// `shims` are further C shim names of the layer, any mention of which is a finding.
    static func findings(in source: String, file: String, members: [String: Set<String>] = [:], shims: [String] = []) -> [Finding] {
        let code = stripCommentsAndStrings(source)
        let text = code as NSString
        let whole = NSRange(location: 0, length: text.length)
        let scopes = Scopes(text)
        var ownMembers = members
        for (type, names) in memberFunctions(in: source) { ownMembers[type, default: []].formUnion(names) }
        let declarations = Self.declarations(in: text, scopes: scopes)
        let lines = LineTable(text)

        var found: [(location: Int, finding: Finding)] = []
        func report(_ location: Int, _ call: String) {
            found.append((location, Finding(file: file, line: lines.line(at: location), call: call)))
        }
        func matches(_ expression: NSRegularExpression, _ string: String, at location: Int, length: Int) -> Bool {
            expression.firstMatch(in: string, range: NSRange(location: location, length: length)) != nil
        }

        for match in libcReference.matches(in: code, range: whole) {
            let name = text.substring(with: match.range(at: 2))
            let after = match.range.location + match.range.length
            let arguments = Self.arguments(in: text, after: after)
            if match.range(at: 1).location != NSNotFound {
                report(match.range.location, text.substring(with: match.range(at: 1)) + "." + name + (arguments == nil ? "" : "("))
                continue
            }
            let start = match.range.location
            let lookBehind = max(0, start - 160)
            let before = text.substring(with: NSRange(location: lookBehind, length: start - lookBehind))
            let rest = text.substring(with: NSRange(location: after, length: min(40, text.length - after)))
            let beforeRange = NSRange(location: 0, length: (before as NSString).length)
            let restRange = NSRange(location: 0, length: (rest as NSString).length)
            if declarationBefore.firstMatch(in: before, range: beforeRange) != nil { continue }
            if rest.range(of: #"^\s*:(?!:)"#, options: .regularExpression) != nil,
               labelBefore.firstMatch(in: before, range: beforeRange) != nil { continue }
            if structNames.contains(name),
               typePositionBefore.firstMatch(in: before, range: beforeRange) != nil
                || typePositionAfter.firstMatch(in: rest, range: restRange) != nil { continue }
            let shadowed = declarations.contains { $0.name == name && $0.start <= start && start < $0.end }
                || scopes.types(enclosing: start).contains { ownMembers[$0]?.contains(name) ?? false }
            if shadowed {
                guard let arguments else { continue }
                let argumentText = arguments as NSString
                if !matches(libcArgument, arguments, at: 0, length: argumentText.length) { continue }
            }
            report(start, name + (arguments == nil ? "" : "("))
        }

        for match in syscallReference.matches(in: code, range: whole) {
            let name = text.substring(with: match.range(at: 1))
            guard let arguments = Self.arguments(in: text, after: match.range.location + match.range.length) else {
                report(match.range.location, "Syscall.\(name)")  // taken as a value: either overload
                continue
            }
            // Labels of its own arguments only, not of a call nested in them.
            let trimmed = Self.topLevel(arguments).trimmingCharacters(in: .whitespacesAndNewlines)
            let relative: Bool
            switch name {
            case "open", "openDirectory", "unlink", "rename", "makeDirectory", "statusIfPresent":
                relative = trimmed.range(of: #"(?<![\w.])in\s*:"#, options: .regularExpression) != nil
            case "inotifyAddWatch":
                relative = trimmed.range(of: #"(?<![\w.])opened\s*:"#, options: .regularExpression) != nil
            case "listDirectory":
                relative = trimmed.range(of: #"^[\w.]*[dD]escriptor$"#, options: .regularExpression) != nil
            default:
                relative = false
            }
            if !relative { report(match.range.location, "Syscall.\(name)(path)") }
        }

        // `Syscall` under another name (`typealias S = Syscall`, `let s = Syscall.self`) would
        // hide its path-based wrappers from the rule above.
        for match in syscallAlias.matches(in: code, range: whole) { report(match.range.location, "Syscall aliased") }

        for match in implicitOpen.matches(in: code, range: whole) {
            guard let arguments = Self.arguments(in: text, after: match.range.location + match.range.length - 1) else { continue }
            if matches(pathArgument, arguments, at: 0, length: (arguments as NSString).length) {
                report(text.range(of: ".", options: [], range: match.range).location, ".open (swift-system, implicit member)")
            }
        }

        let shimPatterns = (shimFunctions + shims).map { (regex(#"\b"# + NSRegularExpression.escapedPattern(for: $0) + #"\b"#), $0) }
        for (expression, call) in shimPatterns + apis {
            for match in expression.matches(in: code, range: whole) { report(match.range.location, call) }
        }

        // SQL opens files by the paths its statements name: matched in string literals.
        let withStrings = stripComments(source) as NSString
        let stringLines = LineTable(withStrings)
        for (expression, call) in sqls {
            for match in expression.matches(in: withStrings as String, range: NSRange(location: 0, length: withStrings.length)) {
                found.append((match.range.location, Finding(file: file, line: stringLines.line(at: match.range.location), call: call)))
            }
        }
        return found.sorted { ($0.finding.line, $0.location) < ($1.finding.line, $1.location) }.map(\.finding)
    }

    /// The direct libc file calls in the C source `source` (a C target's `.c` or `.h`): every
    /// use of a listed name that is not a member (`s.open`, `s->open`) or the `struct stat` type.
    static func cFindings(in source: String, file: String) -> [Finding] {
        let code = stripCComments(source) as NSString
        let lines = LineTable(code)
        let expression = regex(#"(?<![\w.>$])(?<!struct\s)("# + libcFunctions.joined(separator: "|") + #")\b"#)
        return expression.matches(in: code as String, range: NSRange(location: 0, length: code.length)).map {
            Finding(file: file, line: lines.line(at: $0.range.location), call: code.substring(with: $0.range(at: 1)) + " (C)")
        }
    }

    /// `arguments` with what is inside nested parentheses and brackets blanked: its own
    /// labels and values, not those of a call or literal within it.
    private static func topLevel(_ arguments: String) -> String {
        var depth = 0
        return String(arguments.map { character -> Character in
            switch character {
            case "(", "[": depth += 1; return depth == 1 ? character : " "
            case ")", "]": depth -= 1; return depth == 0 ? character : " "
            default: return depth == 0 ? character : " "
            }
        })
    }

    /// The text between the parentheses of a call whose name ends at `after`, or nil when what
    /// follows is not an opening parenthesis.
    private static func arguments(in text: NSString, after: Int) -> String? {
        var index = after
        while index < text.length, let scalar = Unicode.Scalar(text.character(at: index)), CharacterSet.whitespacesAndNewlines.contains(scalar) {
            index += 1
        }
        guard index < text.length, text.character(at: index) == UInt16(UInt8(ascii: "(")) else { return nil }
        let open = index
        var depth = 0
        while index < text.length {
            switch text.character(at: index) {
            case UInt16(UInt8(ascii: "(")): depth += 1
            case UInt16(UInt8(ascii: ")")):
                depth -= 1
                if depth == 0 { return text.substring(with: NSRange(location: open + 1, length: index - open - 1)) }
            default: break
            }
            index += 1
        }
        return text.substring(from: open + 1)
    }

    // MARK: Scopes and declarations

    /// A name declared in source, and the offsets (of stripped code) where it is in scope.
    private struct Declaration {
        var name: String
        var start: Int
        var end: Int
    }

    /// The names `text` declares with `let`/`var`/`func`/`for`/`case` (in scope in the braces
    /// around them), as parameters of a function (in its body) or of a closure (in the closure).
    private static func declarations(in text: NSString, scopes: Scopes) -> [Declaration] {
        let code = text as String
        let whole = NSRange(location: 0, length: text.length)
        var result: [Declaration] = []
        for match in localDeclaration.matches(in: code, range: whole) {
            let block = scopes.innermostBlock(enclosing: match.range.location)
            result.append(Declaration(name: text.substring(with: match.range(at: 1)), start: block.start, end: block.end))
        }
        for match in signatureStart.matches(in: code, range: whole) {
            let open = match.range.location + match.range.length - 1
            guard let parameters = arguments(in: text, after: open),
                  let body = scopes.body(after: open + 1 + (parameters as NSString).length + 1, in: text) else { continue }
            for name in parameterNames(parameters) { result.append(Declaration(name: name, start: body.start, end: body.end)) }
        }
        for block in scopes.blocks {
            // A closure's parameters are on one line, that of its opening brace or the next.
            let length = min(200, block.end - block.start - 1)
            guard length > 0 else { continue }
            let header = text.substring(with: NSRange(location: block.start + 1, length: length)) as NSString
            guard let match = closureHeader.firstMatch(in: header as String, range: NSRange(location: 0, length: header.length)) else { continue }
            let list = [1, 2].compactMap { match.range(at: $0).location == NSNotFound ? nil : header.substring(with: match.range(at: $0)) }.first ?? ""
            for name in parameterNames(list) { result.append(Declaration(name: name, start: block.start, end: block.end)) }
        }
        return result
    }

    /// The internal names of a parameter list: in each comma-separated part, the last word
    /// before its `:`, or its first word when it has no type (a closure's `a, b in`).
    private static func parameterNames(_ list: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        var previous: Character = " "
        for character in list {
            switch character {
            case "(", "[", "<": depth += 1
            case ")", "]": depth -= 1
            case ">" where previous != "-": depth -= 1
            case "," where depth == 0:
                parts.append(current)
                current = ""
                previous = character
                continue
            default: break
            }
            if depth == 0 || character != "," { current.append(character) }
            previous = character
        }
        parts.append(current)
        return parts.compactMap { part in
            let head = part.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? part
            let words = head.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init)
            return (part.contains(":") ? words.last : words.first).flatMap { $0 == "_" ? nil : $0 }
        }
    }

    /// The brace blocks of stripped code, and which are type bodies (`struct`/`class`/`enum`/
    /// `actor`/`extension`/`protocol`), by qualified name: a type nested in another is
    /// `Outer.Inner`, and an extension is of the type it names in full.
    private struct Scopes {
        private(set) var blocks: [(start: Int, end: Int)] = []
        private var ends: [Int: Int] = [:]
        private var bodies: [(start: Int, end: Int, name: String)] = []
        private let length: Int

        init(_ code: NSString) {
            length = code.length
            var opening: [Int: String] = [:]
            for match in DirectFileCallScanner.typeDeclaration.matches(in: code as String, range: NSRange(location: 0, length: code.length)) {
                opening[match.range.location + match.range.length - 1] = code.substring(with: match.range(at: 1))
            }
            var stack: [(start: Int, type: String?)] = []
            for index in 0..<code.length {
                switch code.character(at: index) {
                case UInt16(UInt8(ascii: "{")):
                    var type: String?
                    if let declared = opening[index] {
                        let parent = stack.last { $0.type != nil }?.type
                        type = declared.contains(".") ? declared : parent.map { $0 + "." + declared } ?? declared
                    }
                    stack.append((index, type))
                case UInt16(UInt8(ascii: "}")):
                    if let (start, type) = stack.popLast() {
                        blocks.append((start, index))
                        ends[start] = index
                        if let type { bodies.append((start, index, type)) }
                    }
                default:
                    break
                }
            }
            bodies.sort { $0.start < $1.start }
        }

        /// The qualified names of the types around `location`, outermost first.
        func types(enclosing location: Int) -> [String] {
            bodies.filter { $0.start < location && location < $0.end }.map(\.name)
        }

        /// The smallest block around `location`, or the whole file.
        func innermostBlock(enclosing location: Int) -> (start: Int, end: Int) {
            blocks.filter { $0.start < location && location < $0.end }.min { $0.end - $0.start < $1.end - $1.start } ?? (0, length)
        }

        /// The body of the declaration whose signature ends at `location`: the next block,
        /// unless another declaration or a closing brace comes first (a protocol requirement).
        func body(after location: Int, in code: NSString) -> (start: Int, end: Int)? {
            var index = location
            while index < code.length {
                let character = code.character(at: index)
                if character == UInt16(UInt8(ascii: "}")) { return nil }
                if character == UInt16(UInt8(ascii: "{")) {
                    let between = code.substring(with: NSRange(location: location, length: index - location))
                    guard between.range(of: #"\b(?:func|init|var|let|case|subscript)\b"#, options: .regularExpression) == nil,
                          let end = ends[index] else { return nil }
                    return (index, end)
                }
                index += 1
            }
            return nil
        }
    }

    /// Line numbers of offsets in a text.
    private struct LineTable {
        private var starts: [Int] = [0]

        init(_ text: NSString) {
            for index in 0..<text.length where text.character(at: index) == UInt16(UInt8(ascii: "\n")) { starts.append(index + 1) }
        }

        func line(at location: Int) -> Int {
            var low = 0, high = starts.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if starts[middle] <= location { low = middle } else { high = middle - 1 }
            }
            return low + 1
        }
    }

    // MARK: Lexing

    /// `source` with every comment, the literal text of every string literal (its quotes kept)
    /// and every regex literal replaced by spaces (line breaks kept, so line numbers stay),
    /// backticks dropped, and interpolated expressions kept as code.
    static func stripCommentsAndStrings(_ source: String) -> String {
        strip(source, keepingStrings: false)
    }

    /// `source` with its comments and regex literals blanked but its string literals kept: the
    /// text in which SQL is looked for.
    static func stripComments(_ source: String) -> String {
        strip(source, keepingStrings: true)
    }

    private static func strip(_ source: String, keepingStrings: Bool) -> String {
        enum Context {
            case code(parentheses: Int)
            case string(hashes: Int, multiline: Bool)
        }
        let newline = UInt8(ascii: "\n"), space = UInt8(ascii: " "), slash = UInt8(ascii: "/"), backslash = UInt8(ascii: "\\")
        let bytes = Array(source.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var stack: [Context] = [.code(parentheses: 0)]
        var index = 0

        func at(_ offset: Int) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }
        func blank(_ count: Int) {
            for offset in 0..<count where index + offset < bytes.count {
                output.append(bytes[index + offset] == newline ? newline : space)
            }
            index += count
        }
        func keep(_ count: Int) {
            output.append(contentsOf: bytes[index..<min(bytes.count, index + count)])
            index += count
        }
        func hashes(from start: Int) -> Int {
            var count = 0
            while start + count < bytes.count, bytes[start + count] == UInt8(ascii: "#") { count += 1 }
            return count
        }
        func isIdentifier(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
        }
        /// The end of an extended regex literal `#/.../#` (`count` hashes) starting at `index`.
        func extendedRegexEnd(hashes count: Int) -> Int? {
            var cursor = index + count + 1
            while cursor < bytes.count {
                if bytes[cursor] == backslash { cursor += 2; continue }
                if bytes[cursor] == slash, hashes(from: cursor + 1) >= count { return cursor + 1 + count }
                cursor += 1
            }
            return nil
        }
        /// The end of a bare regex literal `/.../` starting at `index`: where an expression may
        /// start (after an operator, an opening bracket or a keyword like `return`), not followed
        /// by a space, closed on the same line.
        func bareRegexEnd() -> Int? {
            guard let next = at(1), ![space, newline, UInt8(ascii: "\t"), slash, UInt8(ascii: "*"), UInt8(ascii: "=")].contains(next) else {
                return nil
            }
            var back = output.count - 1
            while back >= 0, output[back] == space || output[back] == UInt8(ascii: "\t") { back -= 1 }
            if back >= 0, !Array("([{,=:;!&|?<>+-*%^~\n".utf8).contains(output[back]) {
                var start = back
                while start >= 0, isIdentifier(output[start]) { start -= 1 }
                let word = String(decoding: output[(start + 1)...back], as: UTF8.self)
                guard ["return", "try", "await", "throw", "case", "in", "where", "if", "guard", "while", "else", "is", "as"].contains(word) else {
                    return nil
                }
            }
            var cursor = index + 1
            while cursor < bytes.count, bytes[cursor] != newline {
                if bytes[cursor] == backslash { cursor += 2; continue }
                if bytes[cursor] == slash { return cursor + 1 }
                cursor += 1
            }
            return nil
        }

        while index < bytes.count {
            switch stack[stack.count - 1] {
            case .code(let parentheses):
                let byte = bytes[index]
                if byte == slash, at(1) == slash {
                    while index < bytes.count, bytes[index] != newline { blank(1) }
                } else if byte == slash, at(1) == UInt8(ascii: "*") {
                    var depth = 0
                    repeat {
                        if at(0) == slash, at(1) == UInt8(ascii: "*") { depth += 1; blank(2) }
                        else if at(0) == UInt8(ascii: "*"), at(1) == slash { depth -= 1; blank(2) }
                        else { blank(1) }
                    } while depth > 0 && index < bytes.count
                } else if byte == slash, let end = bareRegexEnd() {
                    blank(end - index)
                } else if byte == UInt8(ascii: "`") {
                    output.append(space)  // `unlink` is unlink
                    index += 1
                } else if byte == UInt8(ascii: "#") || byte == UInt8(ascii: "\"") {
                    let count = hashes(from: index)
                    if index + count < bytes.count, bytes[index + count] == slash, count > 0, let end = extendedRegexEnd(hashes: count) {
                        blank(end - index)
                        continue
                    }
                    guard index + count < bytes.count, bytes[index + count] == UInt8(ascii: "\"") else {
                        // `#if`, `#filePath`, ...: code.
                        keep(max(count, 1))
                        continue
                    }
                    let quote = index + count
                    let multiline = quote + 2 < bytes.count && bytes[quote + 1] == UInt8(ascii: "\"") && bytes[quote + 2] == UInt8(ascii: "\"")
                    keep(count + (multiline ? 3 : 1))
                    stack.append(.string(hashes: count, multiline: multiline))
                } else if byte == UInt8(ascii: "(") {
                    stack[stack.count - 1] = .code(parentheses: parentheses + 1)
                    keep(1)
                } else if byte == UInt8(ascii: ")") {
                    if parentheses == 0, stack.count > 1 {
                        // The end of an interpolation: back into its string.
                        stack.removeLast()
                        if keepingStrings { keep(1) } else { blank(1) }
                    } else {
                        stack[stack.count - 1] = .code(parentheses: max(0, parentheses - 1))
                        keep(1)
                    }
                } else {
                    keep(1)
                }
            case .string(let count, let multiline):
                let byte = bytes[index]
                let literal: (Int) -> Void = keepingStrings ? keep : blank
                if byte == backslash, hashes(from: index + 1) >= count {
                    let next = index + 1 + count
                    if next < bytes.count, bytes[next] == UInt8(ascii: "(") {
                        literal(count + 2)
                        stack.append(.code(parentheses: 0))
                    } else {
                        literal(count + 2)  // an escape: the backslash, its hashes, one character
                    }
                } else if byte == UInt8(ascii: "\"") {
                    let closes = !multiline || (at(1) == UInt8(ascii: "\"") && at(2) == UInt8(ascii: "\""))
                    let quoteLength = multiline ? 3 : 1
                    if closes, hashes(from: index + quoteLength) >= count {
                        keep(quoteLength + count)
                        stack.removeLast()
                    } else {
                        literal(1)
                    }
                } else {
                    literal(1)
                }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// C `source` with its comments and the contents of its string and character literals
    /// blanked, keeping line breaks.
    static func stripCComments(_ source: String) -> String {
        let bytes = Array(source.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        func blank(_ byte: UInt8) { output.append(byte == UInt8(ascii: "\n") ? byte : UInt8(ascii: " ")) }
        while index < bytes.count {
            let byte = bytes[index]
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            if byte == UInt8(ascii: "/"), next == UInt8(ascii: "/") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { blank(bytes[index]); index += 1 }
            } else if byte == UInt8(ascii: "/"), next == UInt8(ascii: "*") {
                blank(byte); blank(next); index += 2
                while index < bytes.count, !(bytes[index] == UInt8(ascii: "*") && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/")) {
                    blank(bytes[index]); index += 1
                }
                for _ in 0..<2 where index < bytes.count { blank(bytes[index]); index += 1 }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                output.append(byte)
                index += 1
                while index < bytes.count, bytes[index] != byte, bytes[index] != UInt8(ascii: "\n") {
                    if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count { blank(bytes[index]); index += 1 }
                    blank(bytes[index]); index += 1
                }
                if index < bytes.count, bytes[index] == byte { output.append(byte); index += 1 }
            } else {
                output.append(byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
