// The SecItem surface exists only where Apple's Security framework does not.
#if !canImport(Darwin)
import Foundation
import Keyring
import Security
import SealedStorage
import SystemPackage

extension FuzzTarget {
    /// Apple's four SecItem functions on dictionaries built from the input: keys from Apple's
    /// constants and junk, values of every type a caller can put in a CFDictionary (strings,
    /// data, numbers, booleans, NSNull, arrays, dictionaries, dates, access controls, huge
    /// strings). Every call must return a documented status, and a failure must leave its
    /// reason in ProcessKeyring.lastError.
    static let secItem = FuzzTarget(
        name: "secitem",
        summary: "SecItemAdd/CopyMatching/Update/Delete on fuzzed dictionaries return a known OSStatus",
        run: { input throws(FuzzFinding) in
            try SecItemChecks.check(input)
        },
        seeds: {
            SecItemChecks.seeds()
        })
}

/// The secitem target's keyring, dictionary builder and checks.
///
/// Input layout: one byte for the lock state and the user-presence answer, then up to
/// maximumCalls calls, each an operation byte and its dictionaries (see Builder).
enum SecItemChecks {
    static let maximumCalls = 4

    /// Apple's constants, as keys and as values.
    static let constants: [String] = [
        kSecClass, kSecClassGenericPassword, kSecClassInternetPassword, kSecClassKey, kSecClassCertificate,
        kSecClassIdentity, kSecAttrService, kSecAttrAccount, kSecAttrAccessGroup, kSecAttrLabel,
        kSecAttrGeneric, kSecAttrDescription, kSecAttrComment, kSecAttrCreator, kSecAttrType,
        kSecAttrCreationDate, kSecAttrModificationDate, kSecAttrIsInvisible, kSecAttrIsNegative,
        kSecAttrSynchronizable, kSecAttrSynchronizableAny, kSecAttrAccessible, kSecAttrAccessControl,
        kSecAttrServer, kSecAttrProtocol, kSecAttrPort, kSecAttrPath, kSecAttrAuthenticationType,
        kSecAttrSecurityDomain, kSecAttrTokenID, kSecAttrPersistentReference, kSecAttrAccessibleWhenUnlocked,
        kSecAttrAccessibleWhenUnlockedThisDeviceOnly, kSecAttrAccessibleAfterFirstUnlock,
        kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
        kSecAttrAccessibleAlways, kSecAttrAccessibleAlwaysThisDeviceOnly, kSecMatchLimit, kSecMatchLimitOne,
        kSecMatchLimitAll, kSecMatchCaseInsensitive, kSecReturnData, kSecReturnAttributes, kSecReturnRef,
        kSecReturnPersistentRef, kSecValueData, kSecValueRef, kSecValuePersistentRef,
        kSecUseDataProtectionKeychain, kSecUseAuthenticationContext, kSecUseAuthenticationUI,
        kSecUseOperationPrompt, kSecUseAuthenticationUIAllow, kSecUseAuthenticationUIFail,
        kSecUseAuthenticationUISkip, kSecAttrProtocolFTP, kSecAttrProtocolFTPAccount, kSecAttrProtocolHTTP,
        kSecAttrProtocolIRC, kSecAttrProtocolNNTP, kSecAttrProtocolPOP3, kSecAttrProtocolSMTP,
        kSecAttrProtocolSOCKS, kSecAttrProtocolIMAP, kSecAttrProtocolLDAP, kSecAttrProtocolAppleTalk,
        kSecAttrProtocolAFP, kSecAttrProtocolTelnet, kSecAttrProtocolSSH, kSecAttrProtocolFTPS,
        kSecAttrProtocolHTTPS, kSecAttrProtocolHTTPProxy, kSecAttrProtocolHTTPSProxy,
        kSecAttrProtocolFTPProxy, kSecAttrProtocolSMB, kSecAttrProtocolRTSP, kSecAttrProtocolRTSPProxy,
        kSecAttrProtocolDAAP, kSecAttrProtocolEPPC, kSecAttrProtocolIPP, kSecAttrProtocolNNTPS,
        kSecAttrProtocolLDAPS, kSecAttrProtocolTelnetS, kSecAttrProtocolIMAPS, kSecAttrProtocolIRCS,
        kSecAttrProtocolPOP3S, kSecAttrAuthenticationTypeNTLM, kSecAttrAuthenticationTypeMSN,
        kSecAttrAuthenticationTypeDPA, kSecAttrAuthenticationTypeRPA, kSecAttrAuthenticationTypeHTTPBasic,
        kSecAttrAuthenticationTypeHTTPDigest, kSecAttrAuthenticationTypeHTMLForm,
        kSecAttrAuthenticationTypeDefault,
    ].map { $0 as String }

    /// The keys' and certificates' constants, added after the first list so that the bytes of
    /// the committed seeds (indices into `keyNames` and `values`) keep their meaning.
    static let keyAndCertificateConstants: [String] = [
        kSecAttrKeyClass, kSecAttrKeyClassPublic, kSecAttrKeyClassPrivate, kSecAttrKeyClassSymmetric, kSecAttrKeyType,
        kSecAttrKeyTypeEC, kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits,
        kSecAttrEffectiveKeySize, kSecAttrApplicationLabel, kSecAttrApplicationTag, kSecAttrIsPermanent,
        kSecAttrIsSensitive, kSecAttrIsExtractable, kSecAttrCanEncrypt, kSecAttrCanDecrypt, kSecAttrCanDerive,
        kSecAttrCanSign, kSecAttrCanVerify, kSecAttrCanWrap, kSecAttrCanUnwrap, kSecAttrTokenIDSecureEnclave,
        kSecAttrCertificateType, kSecAttrCertificateEncoding, kSecAttrSubject, kSecAttrIssuer, kSecAttrSerialNumber,
        kSecAttrSubjectKeyID, kSecAttrPublicKeyHash,
    ].map { $0 as String }

    /// Every key a dictionary may be given by index.
    static let keyNames = constants + keyAndCertificateConstants

    /// Values that reach the interesting paths: the identity's groups, a group it lacks, an
    /// invalid one, plain attribute values.
    static let extraValues = [
        "ABCDE12345.com.example.shared", "ABCDE12345.com.example.app", "group.com.example.fuzz",
        "ABCDE12345.com.example.other", "group..invalid", "api", "ada", "", "\u{0}",
    ]

    static let values = constants + extraValues + keyAndCertificateConstants

    /// Lock state and user presence, in the order the environment byte selects them.
    static let lockStates: [DeviceLockState] = [.unlocked, .locked, .beforeFirstUnlock]
    static let presences: [UserPresence.Response] = [.approve, .deny, .unavailable]

    struct Home: Sendable {
        let keyring: Keyring
    }

    static func sharedHome() throws(FuzzFinding) -> Home {
        do {
            return try FuzzWorkspace.state("secitem") { directory in
                let home = KeyringHome(root: directory.appendingPathComponent("home", isDirectory: true))
                let identity = Identity(
                    teamID: "ABCDE12345", bundleID: "com.example.app",
                    keychainAccessGroups: [GroupIdentifier(rawValue: "ABCDE12345.com.example.shared")!],
                    applicationGroups: [GroupIdentifier(rawValue: "group.com.example.fuzz")!])
                // The master key is created here, once, not inside the first input's run.
                _ = try home.masterKey()
                return Home(
                    keyring: Keyring(identity: identity, home: home))
            }
        } catch {
            throw FuzzFinding("cannot set up the keyring home: \(error)")
        }
    }

    static func check(_ input: [UInt8]) throws(FuzzFinding) -> FuzzOutcome {
        let home = try sharedHome()
        // Every input starts from an empty keychain, so its outcome depends on it alone.
        do {
            try KeyringDatabase.shared(for: home.keyring.home).removeAllItems()
        } catch {
            throw FuzzFinding("cannot empty the keychain: \(error)")
        }
        var reader = FuzzInput(input)
        let environment = reader.byte()
        let lockState = lockStates[Int(environment) % lockStates.count]
        do {
            if try home.keyring.home.lockState() != lockState { try home.keyring.home.setLockState(lockState) }
        } catch {
            throw FuzzFinding("cannot set the lock state: \(error)")
        }

        // The process keyring and the user-presence answer are process-wide: install ours for
        // this input only, so replaying the corpus inside a test run disturbs no other test.
        let previousKeyring = ProcessKeyring.exchange(.resolved(home.keyring))
        let previousPresence = UserPresence.response
        UserPresence.response = presences[Int(environment / 3) % presences.count]
        defer {
            _ = ProcessKeyring.exchange(previousKeyring)
            UserPresence.response = previousPresence
        }

        var outcome = FuzzOutcome.refused
        for _ in 0..<maximumCalls where !reader.isExhausted {
            var builder = Builder(reader: reader)
            let operation = builder.reader.byte() % 4
            // SecItemAdd may be asked for the added item back, or given no result pointer.
            let addReturnsResult = operation == 0 && builder.reader.boolean()
            let query = builder.dictionary(depth: 0)
            let status: OSStatus
            let name: String
            var result: CFTypeRef?
            ProcessKeyring.clearLastError()
            switch operation {
            case 0:
                name = "SecItemAdd"
                status = addReturnsResult ? SecItemAdd(query, &result) : SecItemAdd(query, nil)
            case 1:
                name = "SecItemCopyMatching"
                status = SecItemCopyMatching(query, &result)
            case 2:
                name = "SecItemUpdate"
                status = SecItemUpdate(query, builder.dictionary(depth: 0))
            default:
                name = "SecItemDelete"
                status = SecItemDelete(query)
            }
            reader = builder.reader
            try expect(KeyringStatus.allKnown.contains(KeyringStatus(rawValue: status)), "\(name) returned the undocumented status \(status)")
            let lastError = ProcessKeyring.lastError
            if status == errSecSuccess {
                outcome = .accepted
                try expect(lastError == nil, "\(name) succeeded but recorded an error: \(lastError.map { "\($0)" } ?? "")")
                if let result {
                    try expect(result is NSData || result is NSDictionary || result is NSArray || result is SecKey || result is SecCertificate || result is SecIdentity,
                               "\(name) returned a \(type(of: result))")
                }
            } else {
                try expect(lastError?.status.rawValue == status, "\(name) returned \(status) but ProcessKeyring.lastError is \(lastError.map { "\($0)" } ?? "nil")")
                try expect(lastError.map { !$0.reason.isEmpty } ?? false, "\(name) failed without a reason")
            }
        }
        return outcome
    }

    /// Builds CFDictionary values from the input.
    ///
    /// A dictionary is a count byte (0 to 9 entries), then per entry a key byte (an index into
    /// constants, or past it one of four kinds of junk key) and a value: a type byte and
    /// that type's bytes.
    struct Builder {
        var reader: FuzzInput

        /// How deep arrays and dictionaries may nest inside a value.
        static let maximumDepth = 3
        /// Sizes at and just past the keyring's limits (4 KiB attributes, 128 KiB secrets),
        /// made once: building and bridging a megabyte per input would leave no time to fuzz.
        static let hugeSizes = [4 * 1024, 4 * 1024 + 1, 128 * 1024, 128 * 1024 + 1]
        static let hugeStrings = hugeSizes.map { String(decoding: [UInt8](repeating: 0x61, count: $0), as: UTF8.self) }
        static let hugeData = hugeSizes.map { Data(repeating: 0x61, count: $0) }

        mutating func dictionary(depth: Int) -> CFDictionary {
            var entries: [AnyHashable: Any] = [:]
            for _ in 0..<(Int(reader.byte()) % 10) {
                entries[key()] = value(depth: depth)
            }
            return NSDictionary(dictionary: entries)
        }

        mutating func key() -> AnyHashable {
            let index = Int(reader.byte())
            if index < keyNames.count { return keyNames[index] }
            switch (index - keyNames.count) % 4 {
            case 0: return ""
            case 1: return "kSecAttrAcount"  // a near miss of kSecAttrAccount
            case 2: return String(decoding: reader.shortBytes(), as: UTF8.self)
            default: return NSNumber(value: reader.byte())  // not a string at all
            }
        }

        mutating func value(depth: Int) -> Any {
            switch reader.byte() % 14 {
            case 0: return NSString(string: reader.choose(values))
            case 1: return NSString(string: String(decoding: reader.shortBytes(), as: UTF8.self))
            case 2: return NSData(data: Data(reader.shortBytes()))
            case 3: return NSNumber(value: reader.integer(Int64.self))
            case 4: return NSNumber(value: reader.boolean())
            case 5: return NSNumber(value: Double(bitPattern: reader.integer(UInt64.self)))
            case 6: return NSNull()
            case 7:
                guard depth < Self.maximumDepth else { return NSNull() }
                let count = Int(reader.byte()) % 4
                var elements: [Any] = []
                for _ in 0..<count { elements.append(value(depth: depth + 1)) }
                return NSArray(array: elements)
            case 8:
                guard depth < Self.maximumDepth else { return NSNull() }
                return dictionary(depth: depth + 1)
            case 9: return NSString(string: reader.choose(Self.hugeStrings))
            case 10: return NSData(data: reader.choose(Self.hugeData))
            case 11: return NSDate(timeIntervalSince1970: Double(reader.integer(Int32.self)))
            case 12:
                let protection = NSString(string: reader.choose(values))
                let flags = SecAccessControlCreateFlags(rawValue: CFOptionFlags(reader.integer(UInt16.self)))
                return SecAccessControlCreateWithFlags(nil, protection, flags, nil) ?? NSNull()
            default: return NSNumber(value: Int(reader.byte()))
            }
        }
    }

    // MARK: Seeds

    /// Writes inputs in the layout Builder reads.
    struct SeedWriter {
        var bytes: [UInt8] = []

        mutating func call(_ operation: UInt8, _ dictionaries: [[(String, Value)]]) {
            bytes.append(operation)
            if operation == 0 { bytes.append(1) }  // SecItemAdd: ask for the result
            for dictionary in dictionaries {
                bytes.append(UInt8(dictionary.count))
                for (key, value) in dictionary {
                    bytes.append(UInt8(keyNames.firstIndex(of: key)!))
                    bytes += value.bytes
                }
            }
        }

        enum Value {
            case constant(String)
            case text(String)
            case data(String)
            case bytes([UInt8])
            case boolean(Bool)
            case integer(Int64)

            var bytes: [UInt8] {
                switch self {
                case .constant(let string): return [0, UInt8(values.firstIndex(of: string)!)]
                case .text(let string): return [1, UInt8(string.utf8.count)] + Array(string.utf8)
                case .data(let string): return [2, UInt8(string.utf8.count)] + Array(string.utf8)
                case .bytes(let data): return [2, UInt8(data.count)] + data
                case .boolean(let flag): return [4, flag ? 1 : 0]
                case .integer(let number): return [3] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: number >> (8 * $0)) }
                }
            }
        }
    }

    /// A valid P-256 public key, 04 | X | Y, for the key seed.
    static let seedPublicKey: [UInt8] = {
        let hex = "042efdfde35818f1736b2ad1512b4e0a9efdebd7dd8daba6b271620e733d430c07633fe3716a5ebd65a8ae2795624091f677da6eeaa6d91b711d300510d576d292"
        return stride(from: 0, to: hex.count, by: 2).map { offset in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
    }()

    static func seeds() -> [String: [UInt8]] {
        let item: [(String, SeedWriter.Value)] = [
            (kSecClass as String, .constant(kSecClassGenericPassword as String)),
            (kSecAttrService as String, .text("api")),
            (kSecAttrAccount as String, .text("ada")),
            (kSecAttrAccessGroup as String, .constant("ABCDE12345.com.example.shared")),
            (kSecAttrAccessible as String, .constant(kSecAttrAccessibleAfterFirstUnlock as String)),
            (kSecValueData as String, .data("secret")),
        ]
        let search: [(String, SeedWriter.Value)] = [
            (kSecClass as String, .constant(kSecClassGenericPassword as String)),
            (kSecAttrService as String, .text("api")),
            (kSecReturnData as String, .boolean(true)),
            (kSecReturnAttributes as String, .boolean(true)),
            (kSecMatchLimit as String, .constant(kSecMatchLimitAll as String)),
        ]
        let internet: [(String, SeedWriter.Value)] = [
            (kSecClass as String, .constant(kSecClassInternetPassword as String)),
            (kSecAttrServer as String, .text("example.com")),
            (kSecAttrProtocol as String, .constant(kSecAttrProtocolHTTPS as String)),
            (kSecAttrPort as String, .integer(443)),
            (kSecAttrAccount as String, .text("ada")),
            (kSecValueData as String, .data("pw")),
        ]
        // A P-256 public key (ANSI X9.63) added from its bytes, then read back as a reference.
        let publicKey: [(String, SeedWriter.Value)] = [
            (kSecClass as String, .constant(kSecClassKey as String)),
            (kSecAttrKeyType as String, .constant(kSecAttrKeyTypeECSECPrimeRandom as String)),
            (kSecAttrKeyClass as String, .constant(kSecAttrKeyClassPublic as String)),
            (kSecAttrApplicationTag as String, .data("tag")),
            (kSecValueData as String, .bytes(Self.seedPublicKey)),
        ]
        let keySearch: [(String, SeedWriter.Value)] = [
            (kSecClass as String, .constant(kSecClassKey as String)),
            (kSecAttrApplicationTag as String, .data("tag")),
            (kSecReturnRef as String, .boolean(true)),
            (kSecReturnAttributes as String, .boolean(true)),
        ]
        var keyAddAndRead = SeedWriter(bytes: [0])
        keyAddAndRead.call(0, [publicKey])
        keyAddAndRead.call(1, [keySearch])
        var addAndRead = SeedWriter(bytes: [0])
        addAndRead.call(0, [item])
        addAndRead.call(1, [search])
        var lifecycle = SeedWriter(bytes: [0])
        lifecycle.call(0, [item])
        lifecycle.call(2, [[(kSecClass as String, .constant(kSecClassGenericPassword as String))], [(kSecAttrLabel as String, .text("renamed"))]])
        lifecycle.call(3, [[(kSecClass as String, .constant(kSecClassGenericPassword as String)), (kSecAttrAccount as String, .text("ada"))]])
        var internetAdd = SeedWriter(bytes: [0])
        internetAdd.call(0, [internet])
        var locked = SeedWriter(bytes: [1])  // locked device: a WhenUnlocked item cannot be added
        locked.call(0, [[(kSecClass as String, .constant(kSecClassGenericPassword as String)), (kSecValueData as String, .data("x"))]])
        var wrongGroup = SeedWriter(bytes: [0])
        wrongGroup.call(0, [[(kSecClass as String, .constant(kSecClassGenericPassword as String)), (kSecAttrAccessGroup as String, .constant("ABCDE12345.com.example.other"))]])
        return [
            "valid-add-then-copy": addAndRead.bytes,
            "valid-add-update-delete": lifecycle.bytes,
            "valid-internet-password": internetAdd.bytes,
            "valid-public-key": keyAddAndRead.bytes,
            "locked-device": locked.bytes,
            "missing-entitlement": wrongGroup.bytes,
            "junk-keys": [0, 0, 5, 200, 1, 3, 0x61, 0x62, 0x63, 201, 6, 202, 7, 2, 6, 9, 203, 4, 8, 3],
        ]
    }
}
#endif
