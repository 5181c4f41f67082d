#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage
import SystemPackage

/// The part of an Xcode `.entitlements` property list that GroupVault reads, parsed, expanded
/// and validated.
///
/// The file is input a person wrote (or a build produced), so every failure names the file,
/// the key and the offending value, and says what to write instead. Keys GroupVault does not
/// use are ignored, as codesign ignores entitlements it does not know.
struct EntitlementsFile {
    /// Entitlements files are a few hundred bytes; anything above this is not one, and is
    /// refused before the parser allocates for it.
    static let maximumSize = 1 << 20

    /// More identifiers than this under one key are refused. Real apps list a handful; and each
    /// application group can become a container of five directories, so an unbounded list
    /// would let one file make a process create directories without limit.
    static let maximumGroupsPerKey = 128

    /// The keys read, as Xcode writes them.
    enum Key {
        static let applicationGroups = "com.apple.security.application-groups"
        static let keychainAccessGroups = "keychain-access-groups"
        static let applicationIdentifier = "application-identifier"
        static let teamIdentifier = "com.apple.developer.team-identifier"
    }

    /// What the messages call the input: a path, or a name given for inline data.
    let source: String
    let teamID: String?
    let bundleID: String?
    let applicationIdentifier: GroupIdentifier?
    let keychainAccessGroups: [GroupIdentifier]
    let applicationGroups: [GroupIdentifier]

    /// Parses `data`. `teamID` and `bundleID` are the caller's explicit values, which win over
    /// what the file says.
    init(data: Data, source: String, teamID explicitTeamID: String?, bundleID explicitBundleID: String?) throws(KeyringError) {
        self.source = source
        guard data.count <= Self.maximumSize else {
            throw Self.failure(source, "is \(data.count) bytes; entitlements files are limited to \(Self.maximumSize) bytes, so this is not one")
        }
        let root: PropertyListValue
        do {
            root = try PropertyListValue.parse(data)
        } catch let refusal as PropertyListValue.Refusal {
            throw Self.failure(source, "\(refusal), so it is not an entitlements file")
        } catch {
            throw Self.failure(source, "is not a property list (XML or binary) that can be parsed")
        }
        guard case .dictionary(let dictionary) = root else {
            throw Self.failure(source, "the root is \(root), not a dictionary of entitlements")
        }
        let reader = Reader(source: source, dictionary: dictionary)

        if let explicitTeamID, !GroupIdentifier.isValidTeamID(explicitTeamID) {
            throw Self.failure(source, "the team id given, \"\(GroupIdentifier.printable(explicitTeamID))\", is not a team id: it must be 10 characters of A-Z and 0-9")
        }
        if let explicitBundleID, let problem = GroupIdentifier.problem(withBundleID: explicitBundleID) {
            throw Self.failure(source, "the bundle id given, \"\(GroupIdentifier.printable(explicitBundleID))\", is not a bundle identifier: \(problem)")
        }

        // Team id precedence: the caller, then the team-identifier entitlement, then the prefix
        // of the application identifier. Each later step may use what the earlier ones found.
        var variables = BuildVariables(teamID: explicitTeamID, bundleID: explicitBundleID)
        if variables.teamID == nil, let raw = try reader.string(Key.teamIdentifier) {
            let expanded = try reader.expand(raw, key: Key.teamIdentifier, index: nil, with: variables)
            guard GroupIdentifier.isValidTeamID(expanded) else {
                throw reader.failure(key: Key.teamIdentifier, index: nil, value: raw, "is not a team id: it must be 10 characters of A-Z and 0-9, e.g. \"ABCDE12345\"")
            }
            variables.teamID = expanded
        }

        var applicationIdentifier: GroupIdentifier?
        if let raw = try reader.string(Key.applicationIdentifier) {
            let identifier = try reader.identifier(raw, key: Key.applicationIdentifier, index: nil, with: variables)
            guard let prefix = identifier.teamID else {
                throw reader.failure(key: Key.applicationIdentifier, index: nil, value: raw, "is an application group, not an application identifier: write \"$(AppIdentifierPrefix)$(CFBundleIdentifier)\"")
            }
            // An application belongs to one team: an application identifier of another team
            // than the one given would add that team's group to this identity's access groups
            // while every other group says otherwise, so the contradiction is refused rather
            // than one side silently winning. (Apple's legacy App ID prefixes, which differ from
            // the team id, are not supported: write the team's prefix.)
            if let teamID = variables.teamID, teamID != prefix {
                let origin = explicitTeamID != nil ? "given by the caller" : "from \(Key.teamIdentifier)"
                throw reader.failure(key: Key.applicationIdentifier, index: nil, value: raw, "belongs to team \(prefix), but the team id is \(teamID) (\(origin)); an application belongs to one team: write \"$(AppIdentifierPrefix)$(CFBundleIdentifier)\"")
            }
            variables.teamID = prefix
            variables.bundleID = variables.bundleID ?? identifier.name
            applicationIdentifier = identifier
        }

        self.keychainAccessGroups = try reader.strings(Key.keychainAccessGroups).enumerated().map { (index, raw) throws(KeyringError) in
            try reader.identifier(raw, key: Key.keychainAccessGroups, index: index, with: variables)
        }
        self.applicationGroups = try reader.strings(Key.applicationGroups).enumerated().map { (index, raw) throws(KeyringError) in
            try reader.identifier(raw, key: Key.applicationGroups, index: index, with: variables)
        }
        self.teamID = variables.teamID
        self.bundleID = variables.bundleID
        self.applicationIdentifier = applicationIdentifier
    }

    /// Reads the file at `url`, refusing anything that is not a regular file of at most
    /// ``maximumSize`` bytes before reading it.
    ///
    /// Opened by path, through the file layer, and symbolic links are followed, on purpose:
    /// unlike shared storage, an entitlements file is named by the user
    /// (`GROUPVAULT_ENTITLEMENTS`, `--entitlements`), in a place the user chose, and build
    /// systems and package layouts commonly link them. `O_NOFOLLOW` would refuse those users
    /// and protect no one: whoever can swap a link into the user's own path already controls
    /// the user's configuration. What the file-layer rule is for still holds: the checks are
    /// made on the opened descriptor (`fstat`: a regular file, bounded), so what is checked is
    /// what is read, and nothing is ever written there.
    static func contents(of url: URL) throws(KeyringError) -> Data {
        let path = FilePath(url.path)
        let descriptor: FileDescriptor
        do {
            // O_NONBLOCK so that a FIFO named by mistake cannot hang the process.
            descriptor = try Syscall.open(path, .readOnly, options: [.closeOnExec, .nonBlocking])
        } catch let errno {
            let hint = errno == .noSuchFileOrDirectory ? "does not exist; check the path" : "cannot be opened: \(errno)"
            throw failure(url.path, hint)
        }
        defer { Syscall.close(descriptor) }
        let status: Stat
        do {
            status = try Syscall.status(descriptor)
        } catch {
            throw failure(url.path, "cannot be read: \(error)")
        }
        guard status.type == .regular else { throw failure(url.path, "is not a regular file") }
        guard status.size <= Int64(maximumSize) else {
            throw failure(url.path, "is \(status.size) bytes; entitlements files are limited to \(maximumSize) bytes, so this is not one")
        }
        // One byte past the limit, so a file that grew after fstat is still caught.
        var bytes = [UInt8](repeating: 0, count: maximumSize + 1)
        let total: Int
        do {
            total = try bytes.withUnsafeMutableBytes { buffer throws(Errno) in try Syscall.readAll(descriptor, into: buffer) }
        } catch {
            throw failure(url.path, "cannot be read: \(error)")
        }
        guard total <= maximumSize else {
            throw failure(url.path, "grew past \(maximumSize) bytes while it was read; entitlements files are limited to that, so this is not one")
        }
        return Data(bytes[..<total])
    }

    static func failure(_ source: String, _ problem: String) -> KeyringError {
        KeyringError(.invalidParameter, "entitlements \(source): \(problem)")
    }
}

extension EntitlementsFile {
    /// Typed access to the entitlements dictionary, with messages naming key, index and value.
    struct Reader {
        let source: String
        let dictionary: [String: PropertyListValue]

        /// The string under `key`, `nil` when absent.
        func string(_ key: String) throws(KeyringError) -> String? {
            guard let value = dictionary[key] else { return nil }
            guard case .string(let string) = value else {
                throw failure(key: key, index: nil, found: value, "must be a string")
            }
            return string
        }

        /// The array of strings under `key`, `[]` when absent; at most ``maximumGroupsPerKey``.
        func strings(_ key: String) throws(KeyringError) -> [String] {
            guard let value = dictionary[key] else { return [] }
            guard case .array(let array) = value else {
                throw failure(key: key, index: nil, found: value, "must be an array of strings")
            }
            guard array.count <= EntitlementsFile.maximumGroupsPerKey else {
                throw EntitlementsFile.failure(source, "key \"\(key)\" lists \(array.count) identifiers; at most \(EntitlementsFile.maximumGroupsPerKey) are accepted, and apps list a handful")
            }
            return try array.enumerated().map { (index, element) throws(KeyringError) in
                guard case .string(let string) = element else {
                    throw failure(key: key, index: index, found: element, "must be a string")
                }
                return string
            }
        }

        /// Expands the build variables in `raw` and validates the result as an identifier.
        func identifier(_ raw: String, key: String, index: Int?, with variables: BuildVariables) throws(KeyringError) -> GroupIdentifier {
            let expanded = try expand(raw, key: key, index: index, with: variables)
            if let problem = GroupIdentifier.problem(with: expanded) {
                let shown = expanded == raw ? "" : "(expanded to \"\(GroupIdentifier.printable(expanded))\") "
                throw failure(key: key, index: index, value: raw, "\(shown)is not a valid identifier: \(problem)\(hint(forInvalid: expanded, key: key))")
            }
            return GroupIdentifier(rawValue: expanded)!
        }

        func expand(_ raw: String, key: String, index: Int?, with variables: BuildVariables) throws(KeyringError) -> String {
            do {
                return try variables.expand(raw)
            } catch {
                throw failure(key: key, index: index, value: raw, error.explanation)
            }
        }

        /// The most common mistake behind an invalid identifier: a missing prefix.
        private func hint(forInvalid expanded: String, key: String) -> String {
            guard GroupIdentifier(rawValue: "ABCDE12345." + expanded) != nil else { return "" }
            switch key {
            case Key.applicationGroups:
                return "; application groups start with \"group.\": write \"group.\(GroupIdentifier.printable(expanded))\""
            default:
                return "; keychain access groups carry the team prefix: write \"$(AppIdentifierPrefix)\(GroupIdentifier.printable(expanded))\""
            }
        }

        func failure(key: String, index: Int?, found: PropertyListValue, _ problem: String) -> KeyringError {
            EntitlementsFile.failure(source, "key \"\(key)\"\(index.map { " item \($0)" } ?? "") \(problem), found \(found)")
        }

        func failure(key: String, index: Int?, value: String, _ problem: String) -> KeyringError {
            EntitlementsFile.failure(
                source, "key \"\(key)\"\(index.map { " item \($0)" } ?? ""): \"\(GroupIdentifier.printable(value))\" \(problem)")
        }
    }
}

/// The Xcode build settings an entitlements file may refer to, as `$(NAME)` or `${NAME}`.
struct BuildVariables {
    var teamID: String?
    var bundleID: String?

    /// Why a value could not be expanded.
    struct Failure: Error {
        let explanation: String
    }

    /// `raw` with every variable replaced.
    func expand(_ raw: String) throws(Failure) -> String {
        var result = ""
        var rest = Substring(raw)
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            let afterDollar = rest.index(after: dollar)
            guard afterDollar < rest.endIndex, rest[afterDollar] == "(" || rest[afterDollar] == "{" else {
                result.append("$")
                rest = rest[afterDollar...]
                continue
            }
            let closing: Character = rest[afterDollar] == "(" ? ")" : "}"
            let nameStart = rest.index(after: afterDollar)
            guard let end = rest[nameStart...].firstIndex(of: closing) else {
                throw Failure(explanation: "has an unterminated build variable (\"$\(rest[afterDollar])\" without \"\(closing)\")")
            }
            result += try value(of: String(rest[nameStart..<end]))
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }

    private func value(of name: String) throws(Failure) -> String {
        switch name {
        case "TeamIdentifierPrefix", "AppIdentifierPrefix":
            return try team(for: name) + "."
        case "DEVELOPMENT_TEAM":
            return try team(for: name)
        case "CFBundleIdentifier", "PRODUCT_BUNDLE_IDENTIFIER":
            guard let bundleID else {
                throw Failure(explanation: "uses $(\(name)) but no bundle id is known: pass bundleID: (or set GROUPVAULT_BUNDLE_ID), or add \"\(EntitlementsFile.Key.applicationIdentifier)\" to the entitlements")
            }
            return bundleID
        default:
            throw Failure(explanation: "uses the build variable $(\(GroupIdentifier.printable(name))), which GroupVault cannot expand; the known ones are $(TeamIdentifierPrefix), $(AppIdentifierPrefix), $(DEVELOPMENT_TEAM), $(CFBundleIdentifier) and $(PRODUCT_BUNDLE_IDENTIFIER): write the value out")
        }
    }

    private func team(for name: String) throws(Failure) -> String {
        guard let teamID else {
            throw Failure(explanation: "uses $(\(name)) but no team id is known: pass teamID: (or set GROUPVAULT_TEAM_ID), or add \"\(EntitlementsFile.Key.teamIdentifier)\" to the entitlements")
        }
        return teamID
    }
}
