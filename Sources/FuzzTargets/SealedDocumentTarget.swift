import Foundation
import Keyring
import SealedStorage
import SystemPackage

extension FuzzTarget {
    /// A keyring `SealedDocument` file (docs/STORAGE.md), read as the items file of one access
    /// group of a temporary home whose master key is fixed.
    ///
    /// An input that starts with the magic `GVKD` is written as the file itself: only files
    /// sealed under the home's key open, so this mostly exercises the refusals. Any other input
    /// is taken as the JSON plaintext and sealed the way docs/STORAGE.md describes, which
    /// reaches the decoding and the consistency checks behind the authentication. Either way
    /// the read must give items that belong to the group, or errSecDecode; and a plaintext the
    /// format plainly allows must be accepted.
    static let sealedDocument = FuzzTarget(
        name: "sealed-document",
        summary: "an items SealedDocument gives the group's items or errSecDecode",
        run: { input throws(FuzzFinding) in
            try SealedDocumentChecks.check(input)
        },
        seeds: {
            try SealedDocumentChecks.seeds()
        })
}

/// The sealed-document target's home and checks.
enum SealedDocumentChecks {
    static let group = GroupIdentifier(rawValue: "ABCDE12345.com.example.shared")!
    private static let magic = Array("GVKD".utf8)

    /// The home, made once per run: a master key of fixed bytes (so committed seeds sealed
    /// under it open in every run) and the group's keychain directory.
    struct Home: Sendable {
        let keyring: Keyring
        let itemsPath: FilePath
        /// The key docs/STORAGE.md derives from the master secret for sealed documents.
        let documentKey: SymmetricKey
    }

    static func sharedHome() throws(FuzzFinding) -> Home {
        do {
            return try FuzzWorkspace.state("sealed-document") { directory in
                let home = KeyringHome(root: directory.appendingPathComponent("home", isDirectory: true))
                try home.prepareKeychains()
                let master = (0..<SymmetricKey.byteCount).map { UInt8(0xA0 + $0) }
                try AtomicFile.replace(home.masterKeyPath, with: master, sharing: home.sharing.fileSharing, durability: .atomic)
                let directory = try home.prepareKeychain(for: group)
                let identity = Identity(teamID: "ABCDE12345", bundleID: "com.example.app", keychainAccessGroups: [group])
                return Home(
                    keyring: Keyring(identity: identity, home: home),
                    itemsPath: directory.appending("items.sealed"),
                    documentKey: KeyDerivation.deriveKey(from: try SymmetricKey(bytes: master), context: "GVKEYRNG", id: 1))
            }
        } catch {
            // Not the parser's fault, but nothing can be checked without the home.
            throw FuzzFinding("cannot set up the keyring home: \(error)")
        }
    }

    static func check(_ input: [UInt8]) throws(FuzzFinding) -> FuzzOutcome {
        let home = try sharedHome()
        let isFile = input.starts(with: magic)
        let file = isFile ? input : seal(input, kind: "items", key: home.documentKey)
        try emptyKeychain(home)
        try write(file, to: home.itemsPath)

        var items: [KeychainItem] = []
        do throws(KeyringError) {
            for itemClass in ItemClass.allCases {
                // Without secrets, so no user-presence prompt can stand between the file and the answer.
                items += try home.keyring.items(matching: ItemQuery(itemClass, accessGroup: group, synchronizable: .any), includingSecrets: false)
            }
        } catch {
            try expect(error.status == .decode, "reading the items file failed with \(error.status), not errSecDecode: \(error.reason)")
            if !isFile, let plain = PlainItems(input), plain.mustBeAccepted {
                throw FuzzFinding("a plaintext of \(plain.items.count) item(s) of the group, version 1, was refused: \(error.reason)")
            }
            return .refused
        }
        for item in items {
            try expect(item.accessGroup == group, "an item of group \(item.accessGroup?.rawValue ?? "none") was returned from \(group)")
        }
        let references = items.compactMap(\.persistentReference)
        try expect(references.count == items.count && Set(references).count == items.count, "returned items lack unique persistent references")
        if !isFile {
            guard let plain = PlainItems(input) else {
                throw FuzzFinding("the keyring accepted a plaintext that does not decode as the documented layout")
            }
            try expect(plain.version == 1, "the keyring accepted item layout version \(plain.version)")
            try expect(plain.items.count == items.count, "the plaintext holds \(plain.items.count) items, the keyring returned \(items.count)")
        }
        return .accepted
    }

    /// A sealed document as docs/STORAGE.md lays it out: `GVKD`, version 1, a nonce, then the
    /// sealed JSON, with `GVKD | 1 | kind | 0 | group` as additional data. Written from the
    /// documentation rather than by SealedDocument, so a divergence shows up as a refused
    /// `valid-` seed.
    static func seal(_ plaintext: [UInt8], kind: String, key: SymmetricKey) -> [UInt8] {
        let nonce = try! XChaCha20Poly1305.Nonce(bytes: [UInt8](repeating: 0x5A, count: XChaCha20Poly1305.nonceByteCount))  // 24 bytes
        let additionalData = magic + [1] + Array(kind.utf8) + [0] + Array(group.rawValue.utf8)
        return magic + [1] + nonce.bytes + XChaCha20Poly1305.seal(plaintext, using: key, nonce: nonce, authenticating: additionalData)
    }

    /// No item and no record of an import: the next read imports the items file afresh, so each
    /// input's answer depends on that input alone.
    private static func emptyKeychain(_ home: Home) throws(FuzzFinding) {
        do {
            try KeyringDatabase.shared(for: home.keyring.home).removeAllItems()
        } catch {
            throw FuzzFinding("cannot empty the keychain: \(error)")
        }
    }

    private static func write(_ bytes: [UInt8], to path: FilePath) throws(FuzzFinding) {
        do {
            let descriptor = try FileDescriptor.open(path, .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: .ownerReadWrite)
            defer { try? descriptor.close() }
            _ = try descriptor.writeAll(bytes)
        } catch {
            throw FuzzFinding("cannot write the items file: \(error)")
        }
    }

    /// The plaintext layout read independently of the keyring: `{"version": n, "items": [...]}`.
    struct PlainItems: Decodable {
        var version: Int
        var items: [KeychainItem]

        init?(_ json: [UInt8]) {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            guard let decoded = try? decoder.decode(PlainItems.self, from: Data(json)) else { return nil }
            self = decoded
        }

        /// True when no documented rule can refuse it: version 1, every item in the group with
        /// a persistent reference, and at most one item (so no two can share a primary key).
        var mustBeAccepted: Bool {
            version == 1 && items.count <= 1 && items.allSatisfy { $0.accessGroup == group && $0.persistentReference != nil }
        }
    }

    // MARK: Seeds

    static func seeds() throws -> [String: [UInt8]] {
        let home = try sharedHome()
        try? FileManager.default.removeItem(atPath: home.itemsPath.string)
        var generic = KeychainItem(service: "api.example.com", account: "ada", accessGroup: group, secret: Data("token".utf8), label: "API token")
        generic.accessibility = .afterFirstUnlock
        let internet = KeychainItem(
            .internetPassword, account: "ada", accessGroup: group, secret: Data("pw".utf8),
            server: "example.com", protocol: "htps", port: 443, path: "/login")
        try? FileManager.default.removeItem(atPath: home.itemsPath.string)
        try emptyKeychain(home)
        let stored = [try home.keyring.add(generic), try home.keyring.add(internet)]

        struct Layout: Encodable {
            var version: Int
            var items: [KeychainItem]
        }
        func json(_ version: Int, _ items: [KeychainItem]) throws -> [UInt8] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .secondsSince1970
            return Array(try encoder.encode(Layout(version: version, items: items)))
        }
        // An items file of the earlier layout holding the items as the keyring stored them,
        // under the fixed master key (the keyring itself now only imports such files).
        let libraryFile = seal(try json(1, stored), kind: "items", key: home.documentKey)
        var foreign = stored[0]
        foreign.accessGroup = GroupIdentifier(rawValue: "ABCDE12345.com.example.other")
        var twin = stored[1]
        twin.persistentReference = stored[0].persistentReference
        return [
            "valid-library-items.sealed": libraryFile,
            "valid-plaintext-two-items.json": try json(1, stored),
            "valid-plaintext-empty.json": try json(1, []),
            "plaintext-version-2.json": try json(2, stored),
            "plaintext-foreign-group.json": try json(1, [foreign]),
            "plaintext-shared-reference.json": try json(1, [stored[0], twin]),
            "plaintext-duplicate-key.json": try json(1, [stored[0], stored[0]]),
            "keyset-kind.sealed": seal(try json(1, stored), kind: "keyset", key: home.documentKey),
            "truncated.sealed": Array(libraryFile.prefix(40)),
        ]
    }
}
