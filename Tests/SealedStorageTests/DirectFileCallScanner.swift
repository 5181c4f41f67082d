import Foundation

/// Finds direct file-system calls in Swift source: the calls that must go through the file
/// layer (`Sources/SealedStorage/Files`, the `Syscall` enum and the types on it) everywhere else.
///
/// It reads text, not types, so its rules are lexical and kept deliberately simple:
/// - comments and the literal parts of string literals are blanked first (interpolations stay
///   code), keeping line numbers;
/// - a libc name counts when called as a free function (`unlink(`) or through its module
///   (`Glibc.unlink(`), not as a method or member (`.open(`, `XChaCha20Poly1305.open(`,
///   `descriptor.close()`), nor where it is declared (`func open(`, `case open(`);
/// - inside a type that declares a function of the same name (`func bind(` in
///   `SQLiteConnection`, in any file of the module), an unqualified call is the type's own, as
///   Swift's lookup finds the member first (which is why such a type writes `Glibc.open`,
///   which is counted); so is a name the file declares with `let`/`var`; an `open(` passing an
///   `O_` flag is libc's whatever is declared;
/// - reads, writes and closes of a descriptor are not path operations and are not listed.
struct DirectFileCallScanner {
    /// One direct call: where, and what.
    struct Finding: Equatable, CustomStringConvertible {
        var file: String
        var line: Int
        var call: String

        var description: String { "\(file):\(line): \(call)" }
    }

    /// The libc functions that take a path or act on a file's metadata, from the rule of the
    /// file layer (docs/ARCHITECTURE.md).
    static let libcFunctions: [String] = [
        "open", "openat", "creat", "fopen", "chmod", "fchmod", "fchmodat", "chown", "fchown", "fchownat", "lchown",
        "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat", "rmdir", "link", "linkat",
        "symlink", "symlinkat", "stat", "lstat", "fstat", "fstatat", "access", "faccessat", "truncate", "ftruncate",
        "bind", "mkfifo", "mkfifoat", "mknod", "mknodat", "opendir", "realpath", "readlink", "readlinkat", "utimes",
        "utimensat", "futimens", "sem_open", "sem_unlink", "shm_open", "shm_unlink", "inotify_add_watch",
    ]

    /// The C shims that wrap file calls Swift cannot make (the variadic `sem_open`): CFileLayer's
    /// own, and the names CGroupIPC's wrappers had. Their names are unique, so any mention is a
    /// finding, not only a call: passing one as a function pointer is calling it by proxy.
    static let shimFunctions: [String] = [
        "filelayer_semaphore_create", "cgroupipc_semaphore_create", "cgroupipc_semaphore_open",
    ]

    /// Foundation's and swift-system's file operations, as (pattern, what to call it).
    static let apiPatterns: [(pattern: String, call: String)] = shimFunctions.map { (#"\b"# + $0 + #"\b"#, $0) } + [
        (#"\bsqlite3_open\w*\s*\("#, "sqlite3_open"),
        (#"\bFileDescriptor\s*\.\s*open\s*\("#, "FileDescriptor.open"),
        // FilePath.stat / FileDescriptor.stat (swift-system): any `.stat(` method call.
        (#"\.\s*stat\s*\("#, ".stat (swift-system)"),
        (#"\b(?:NS)?Data\s*\(\s*contentsOf(?:File)?\s*:"#, "Data(contentsOf:)"),
        (#"\bString\s*\(\s*contentsOf(?:File)?\s*:"#, "String(contentsOf:)"),
        // Data.write(to: URL) and String.write(toFile:); not an `inout` sink (`write(to: &output)`).
        (#"\.\s*write\s*\(\s*to\s*:(?!\s*&)"#, ".write(to:)"),
        (#"\.\s*write\s*\(\s*toFile\s*:"#, ".write(toFile:)"),
        (#"\bFileHandle\s*\(\s*for\w*\s*:"#, "FileHandle(for...:)"),
        // FileManager: by the labels of its file operations, so a method of the same name on
        // another type (`GroupDatabase.createFile(path, sharing:)`) is not taken for one.
        (#"\.\s*(createDirectory|createFile|removeItem|moveItem|copyItem|linkItem|createSymbolicLink|trashItem|contents|contentsOfDirectory|subpathsOfDirectory|subpaths|enumerator|attributesOfItem|attributesOfFileSystem|fileExists|isReadableFile|isWritableFile|isExecutableFile|isDeletableFile|destinationOfSymbolicLink)\s*\(\s*(?:at|atPath|forPath)\s*:"#, "FileManager"),
        (#"\.\s*(replaceItemAt|changeCurrentDirectoryPath)\s*\(|\.\s*replaceItem\s*\(\s*at\s*:|ofItemAtPath\s*:|\.\s*contentsEqual\s*\(\s*atPath\s*:"#, "FileManager"),
        (#"\.\s*bind\s*\(\s*unixDomainSocketPath\s*:"#, "bind(unixDomainSocketPath:)"),
    ]

    private static let freeCall: NSRegularExpression = {
        let names = libcFunctions.joined(separator: "|")
        // Not after `.`, `$`, a letter or digit (a member, or part of a longer name); optionally
        // through its module, which a type must write when it shadows the name itself.
        return try! NSRegularExpression(pattern: #"(?:\b(?:Glibc|Darwin|Musl|Foundation|CGroupIPC)\s*\.\s*|(?<![\w.$]))("# + names + #")\s*\("#)
    }()

    private static let localDeclaration = try! NSRegularExpression(pattern: #"\b(?:let|var)\s+`?(\w+)`?"#)
    private static let functionDeclaration = try! NSRegularExpression(pattern: #"\bfunc\s+`?(\w+)`?"#)
    private static let typeDeclaration = try! NSRegularExpression(pattern: #"\b(?:struct|class|enum|actor|extension|protocol)\s+([\w.]+)[^{;]*\{"#)
    /// libc's open flags: an `open(` call that passes one is libc's, whatever is declared.
    private static let openFlag = try! NSRegularExpression(pattern: #"^[^\n]*?\bO_[A-Z]+"#)

    private static let apis: [(NSRegularExpression, String)] = apiPatterns.map { (try! NSRegularExpression(pattern: $0.pattern), $0.call) }

    /// The functions `source` declares inside each type (or extension of it), by type name:
    /// within that type, in any file of the module, an unqualified call of one of those names
    /// is the type's own, as Swift's lookup finds the member before the global function.
    static func memberFunctions(in source: String) -> [String: Set<String>] {
        let code = stripCommentsAndStrings(source) as NSString
        let scopes = TypeScopes(code)
        var members: [String: Set<String>] = [:]
        for match in functionDeclaration.matches(in: code as String, range: NSRange(location: 0, length: code.length)) {
            let name = code.substring(with: match.range(at: 1))
            for type in scopes.types(enclosing: match.range.location) { members[type, default: []].insert(name) }
        }
        return members
    }

    /// The direct calls in `source`, named `file` in the findings; `members` are the member
    /// functions of its module's types (``memberFunctions(in:)`` of each of its files, merged).
    static func findings(in source: String, file: String, members: [String: Set<String>] = [:]) -> [Finding] {
        let code = stripCommentsAndStrings(source)
        let text = code as NSString
        let whole = NSRange(location: 0, length: text.length)
        let scopes = TypeScopes(text)
        var ownMembers = members
        for (type, names) in memberFunctions(in: source) { ownMembers[type, default: []].formUnion(names) }
        let locals = Set(localDeclaration.matches(in: code, range: whole).map { text.substring(with: $0.range(at: 1)) })
        let lineStarts = Self.lineStarts(of: text)
        func line(at location: Int) -> Int {
            var low = 0, high = lineStarts.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if lineStarts[middle] <= location { low = middle } else { high = middle - 1 }
            }
            return low + 1
        }

        var found: [(location: Int, finding: Finding)] = []
        for match in freeCall.matches(in: code, range: whole) {
            let name = text.substring(with: match.range(at: 1))
            let matched = text.substring(with: match.range)
            let qualified = matched.contains(".")
            let after = match.range.location + match.range.length
            if !qualified {
                let rest = NSRange(location: after, length: text.length - after)
                let passesOpenFlags = ["open", "openat", "creat"].contains(name) && openFlag.firstMatch(in: code, range: rest) != nil
                let shadowed = locals.contains(name)
                    || scopes.types(enclosing: match.range.location).contains { ownMembers[$0]?.contains(name) ?? false }
                if shadowed, !passesOpenFlags { continue }
                let lineStart = lineStarts[line(at: match.range.location) - 1]
                let before = text.substring(with: NSRange(location: lineStart, length: match.range.location - lineStart))
                if before.range(of: #"\b(?:func|case)\s+$"#, options: .regularExpression) != nil { continue }
                // `stat()` with nothing in it is the C struct's initialiser, not the call.
                if name == "stat", after < text.length, text.character(at: after) == UInt16(UInt8(ascii: ")")) { continue }
            }
            let call = qualified ? matched.replacingOccurrences(of: " ", with: "") : name + "("
            found.append((match.range.location, Finding(file: file, line: line(at: match.range.location), call: call)))
        }
        for (expression, call) in apis {
            for match in expression.matches(in: code, range: whole) {
                found.append((match.range.location, Finding(file: file, line: line(at: match.range.location), call: call)))
            }
        }
        return found.sorted { $0.location < $1.location }.map(\.finding)
    }

    private static func lineStarts(of text: NSString) -> [Int] {
        var starts = [0]
        for index in 0..<text.length where text.character(at: index) == UInt16(UInt8(ascii: "\n")) { starts.append(index + 1) }
        return starts
    }

    /// Which type declarations (`struct`/`class`/`enum`/`actor`/`extension`/`protocol`) enclose
    /// each offset of stripped code, by following its braces.
    private struct TypeScopes {
        /// (start, end, type name) of each type body, in UTF-16 offsets.
        private var bodies: [(start: Int, end: Int, name: String)] = []

        init(_ code: NSString) {
            var opening: [Int: String] = [:]
            for match in DirectFileCallScanner.typeDeclaration.matches(in: code as String, range: NSRange(location: 0, length: code.length)) {
                let dotted = code.substring(with: match.range(at: 1))
                let name = dotted.split(separator: ".").last.map(String.init) ?? dotted
                opening[match.range.location + match.range.length - 1] = name
            }
            var stack: [(start: Int, name: String?)] = []
            for index in 0..<code.length {
                switch code.character(at: index) {
                case UInt16(UInt8(ascii: "{")):
                    stack.append((index, opening[index]))
                case UInt16(UInt8(ascii: "}")):
                    if let (start, name) = stack.popLast(), let name { bodies.append((start, index, name)) }
                default:
                    break
                }
            }
        }

        func types(enclosing location: Int) -> [String] {
            bodies.filter { $0.start < location && location < $0.end }.map(\.name)
        }
    }

    /// `source` with every comment and the literal text of every string literal replaced by
    /// spaces (line breaks kept, so line numbers stay), and interpolated expressions kept as code.
    static func stripCommentsAndStrings(_ source: String) -> String {
        enum Context {
            case code(parentheses: Int)
            case string(hashes: Int, multiline: Bool)
        }
        let bytes = Array(source.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var stack: [Context] = [.code(parentheses: 0)]
        var index = 0

        func at(_ offset: Int) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }
        func blank(_ count: Int) {
            for offset in 0..<count where index + offset < bytes.count {
                output.append(bytes[index + offset] == UInt8(ascii: "\n") ? UInt8(ascii: "\n") : UInt8(ascii: " "))
            }
            index += count
        }
        func hashes(from start: Int) -> Int {
            var count = 0
            while start + count < bytes.count, bytes[start + count] == UInt8(ascii: "#") { count += 1 }
            return count
        }

        while index < bytes.count {
            switch stack[stack.count - 1] {
            case .code(let parentheses):
                let byte = bytes[index]
                if byte == UInt8(ascii: "/"), at(1) == UInt8(ascii: "/") {
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { blank(1) }
                } else if byte == UInt8(ascii: "/"), at(1) == UInt8(ascii: "*") {
                    var depth = 0
                    repeat {
                        if at(0) == UInt8(ascii: "/"), at(1) == UInt8(ascii: "*") { depth += 1; blank(2) }
                        else if at(0) == UInt8(ascii: "*"), at(1) == UInt8(ascii: "/") { depth -= 1; blank(2) }
                        else { blank(1) }
                    } while depth > 0 && index < bytes.count
                } else if byte == UInt8(ascii: "#") || byte == UInt8(ascii: "\"") {
                    let count = hashes(from: index)
                    guard index + count < bytes.count, bytes[index + count] == UInt8(ascii: "\"") else {
                        // `#if`, `#filePath`, ...: code.
                        output.append(contentsOf: bytes[index..<(index + max(count, 1))])
                        index += max(count, 1)
                        continue
                    }
                    let quote = index + count
                    let multiline = quote + 2 < bytes.count && bytes[quote + 1] == UInt8(ascii: "\"") && bytes[quote + 2] == UInt8(ascii: "\"")
                    blank(count + (multiline ? 3 : 1))
                    stack.append(.string(hashes: count, multiline: multiline))
                } else if byte == UInt8(ascii: "(") {
                    stack[stack.count - 1] = .code(parentheses: parentheses + 1)
                    output.append(byte)
                    index += 1
                } else if byte == UInt8(ascii: ")") {
                    if parentheses == 0, stack.count > 1 {
                        // The end of an interpolation: back into its string.
                        stack.removeLast()
                        blank(1)
                    } else {
                        stack[stack.count - 1] = .code(parentheses: max(0, parentheses - 1))
                        output.append(byte)
                        index += 1
                    }
                } else {
                    output.append(byte)
                    index += 1
                }
            case .string(let count, let multiline):
                let byte = bytes[index]
                if byte == UInt8(ascii: "\\"), hashes(from: index + 1) >= count {
                    let next = index + 1 + count
                    if next < bytes.count, bytes[next] == UInt8(ascii: "(") {
                        blank(count + 2)
                        stack.append(.code(parentheses: 0))
                    } else {
                        blank(count + 2)  // an escape: the backslash, its hashes, one character
                    }
                } else if byte == UInt8(ascii: "\"") {
                    let closes = !multiline || (at(1) == UInt8(ascii: "\"") && at(2) == UInt8(ascii: "\""))
                    let quoteLength = multiline ? 3 : 1
                    if closes, hashes(from: index + quoteLength) >= count {
                        blank(quoteLength + count)
                        stack.removeLast()
                    } else {
                        blank(1)
                    }
                } else {
                    blank(1)
                }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
