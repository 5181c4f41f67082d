// swift-tools-version:6.1
import PackageDescription

// Dependencies are chosen, not accumulated (see README "Dependencies"):
// - libsodium (system library) for every cryptographic operation;
// - libsqlite3 (system library) for the keyring's store;
// - swift-system for file descriptors, paths and errno values instead of hand-written wrappers;
// - swift-argument-parser for vaultcli;
// - SwiftNIO for GroupMessaging's Unix-socket channel only, so users of Vault or Keyring alone
//   never build or link it.
// - GRDB for GroupDatabase only (SQLite through the system libsqlite3), so that users of the
//   other products never build or link it.

// `GROUPVAULT_PACKAGE_SCOPE=core` declares only SealedStorage, Keyring and Vault, with their test
// targets and fixture: scripts/sanitize's ThreadSanitizer build, whose suites all live there, then
// compiles none of SwiftNIO, GRDB, swift-crypto's BoringSSL or postgres-nio, which a full build
// spends most of its time on (docs/ARCHITECTURE.md, "CI time"). Unset, the package is whole.
let coreScopeOnly = Context.environment["GROUPVAULT_PACKAGE_SCOPE"] == "core"

// scripts/fuzz sets `GROUPVAULT_FUZZ_RUNTIME` to libFuzzer's runtime without its main: then, and
// only then, GroupVaultFuzz is compiled with FUZZING and linked against it. It is a setting of
// that one target, not a flag of the whole build, so scripts/sanitize's ASan build (the same
// sanitizer and coverage flags) builds the test suites and the fuzzer in one go, and its fuzz
// smoke run reuses that build (docs/ARCHITECTURE.md, "CI time").
let fuzzRuntime = Context.environment["GROUPVAULT_FUZZ_RUNTIME"]

// The `Security` module is Apple's SecItem API over Keyring, for Linux: code written for Apple
// platforms keeps its `import Security`. On Apple platforms the real framework owns that name,
// so the target exists only when the manifest is evaluated elsewhere (docs/ARCHITECTURE.md,
// "The Security module").
#if canImport(Darwin)
let securityProducts: [Product] = []
let securityPackages: [Package.Dependency] = []
let securityTargets: [Target] = []
let security: [Target.Dependency] = []
#else
// SecKey and SecCertificate need elliptic curves, RSA and DER, which libsodium does not have:
// swift-crypto (P-256/384/521, AES-GCM, and `_CryptoExtras` for RSA) and swift-certificates /
// swift-asn1 (X.509 and DER), for the `Security` target only, so users of Keyring, Vault or
// the other products never build or link them.
let securityPackages: [Package.Dependency] = [
    .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
]
let securityProducts: [Product] = [.library(name: "Security", targets: ["Security"])]
let securityTargets: [Target] = [
    .target(
        name: "Security",
        dependencies: [
            "Keyring", "SealedStorage",
            // SecKey's curves, RSA and ECIES (Keys/), certificates and their DER (Certificates/).
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
            .product(name: "X509", package: "swift-certificates"),
            .product(name: "SwiftASN1", package: "swift-asn1"),
        ]
    ),
    // A keychain wrapper written as for Apple platforms: its files import only Foundation
    // and (through one shim file) Security, so building it proves the README's recipe.
    .target(
        name: "WrapperStyleKeychain",
        dependencies: ["Security"],
        path: "Tests/WrapperStyleKeychain"
    ),
    .testTarget(
        name: "SecItemTests",
        dependencies: ["Security", "Keyring", "KeyringTestSupport", "SealedStorage", "GroupVaultTestKit", "GroupVaultFixture"]
    ),
    .testTarget(
        name: "SecurityCompatibilityTests",
        dependencies: ["WrapperStyleKeychain", "KeyringTestSupport"]
    ),
    // SecKey, SecCertificate and SecIdentity: known answers from Apple platforms, and the
    // reverse direction checked by Python's `cryptography` (Resources/).
    .testTarget(
        name: "SecKeyTests",
        dependencies: [
            "Security", "Keyring", "KeyringTestSupport", "GroupVaultTestKit",
            // Hashes for the digest variants' test inputs.
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        resources: [.copy("Resources")]
    ),
]
let security: [Target.Dependency] = coreScopeOnly ? [] : ["Security"]
#endif

// What SealedStorage, Keyring and Vault need: all that a core-scope build resolves.
let corePackages: [Package.Dependency] = [
    .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    // Diagnostics for daemons: the ecosystem's logging and metrics APIs. The library only
    // emits through them (it never bootstraps either); both are small and dependency-free.
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
]
let otherPackages: [Package.Dependency] = [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    // GroupSync only: a PostgreSQL client (LISTEN/NOTIFY, TLS through NIOSSL) that speaks the
    // wire protocol itself, so no libpq and no server-side code of ours (docs/SYNC.md).
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    // `make docs`: the DocC catalogs of every library product (Sources/<Target>/<Target>.docc)
    // through `swift package generate-documentation`. A command plugin only: nothing of it is
    // linked into a product.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
]

let package = Package(
    name: "GroupVault",
    // Mutex (Synchronization) needs macOS 15 on Apple platforms; Linux has no such floor.
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Keyring", targets: ["Keyring"]),
        .library(name: "Vault", targets: ["Vault"]),
        .library(name: "GroupMessaging", targets: ["GroupMessaging"]),
        .library(name: "KeyringTestSupport", targets: ["KeyringTestSupport"]),
        // Two products, not one "GroupStores": GroupDatabase pulls GRDB and SQLite, and an app
        // that only shares a few settings should not build or link them.
        .library(name: "SharedDefaults", targets: ["SharedDefaults"]),
        .library(name: "GroupDatabase", targets: ["GroupDatabase"]),
        .executable(name: "vaultcli", targets: ["vaultcli"]),
        // A group's sealed state across machines through PostgreSQL: its own product so that
        // only apps that sync build and link postgres-nio.
        .library(name: "GroupSync", targets: ["GroupSync"]),
    ] + securityProducts,
    dependencies: coreScopeOnly ? corePackages : corePackages + otherPackages + securityPackages,
    targets: [
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // The keyring's store: the system libsqlite3 (docs/ARCHITECTURE.md says why not GRDB).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "SealedStorage",
            dependencies: [
                "CSodium",
                // The file layer's C shim: sem_open is variadic, so Swift cannot call it.
                "CFileLayer",
                // SQLite opens its databases by path; the layer makes that one call
                // (Syscall.openSQLiteDatabase). Every product already links SQLite via Keyring.
                "CSQLite",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "Keyring",
            dependencies: [
                "SealedStorage",
                "CSQLite",
                .product(name: "SystemPackage", package: "swift-system"),
                // Keyring.logger and Keyring.metricsFactory, which every store built on a
                // keyring reports through.
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "Vault",
            dependencies: [
                "Keyring",
                "SealedStorage",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // What GroupMessaging needs from C that Swift cannot call: SO_PEERCRED's struct ucred
        // (hidden behind _GNU_SOURCE) and semaphore calls on a handle.
        .target(name: "CGroupIPC"),
        // The file layer's calls Swift cannot make (the variadic sem_open); only
        // Sources/SealedStorage/Files calls them (FileLayerScanTests).
        .target(name: "CFileLayer"),
        // Notifications and a sealed Unix-socket channel between the processes of a group
        // (docs/MESSAGING.md). The only module that depends on SwiftNIO.
        .target(
            name: "GroupMessaging",
            dependencies: [
                "Keyring",
                "SealedStorage",
                "CGroupIPC",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // A client's lost connections, logged and counted through the keyring's.
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // UserDefaults(suiteName:) for a group, sealed: one Vault record per key.
        .target(
            name: "SharedDefaults",
            dependencies: [
                "Vault",
                "Keyring",
                "SealedStorage",
                .product(name: "Logging", package: "swift-log"),
                // The file layer's types, for the preferences file it imports.
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // A SQLite database in the group container, shared by several processes, through GRDB.
        .target(
            name: "GroupDatabase",
            dependencies: [
                "Keyring",
                "SealedStorage",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // For users' own test suites: throw-away homes, inline identities, lock state, user
        // presence and failure switches, so keychain code can be tested without a signed host app.
        .target(
            name: "KeyringTestSupport",
            dependencies: ["Keyring"]
        ),
        .executableTarget(
            name: "vaultcli",
            dependencies: [
                "Vault",
                "Keyring",
                // For UntrustedText: every name read from disk is printed through its escaper,
                // and for the file layer every file call goes through.
                "SealedStorage",
                // The file layer's types (FileDescriptor, FilePath, Errno) appear in its calls.
                .product(name: "SystemPackage", package: "swift-system"),
                "GroupMessaging",
                "SharedDefaults",
                // `vaultcli sync`: the ubiquitous key-value store and its server (Sources/vaultcli/Sync).
                "GroupSync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // --verbose / --log-level: the keyring's logger, printed on standard error.
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The README's demo: an app and its widget as two real processes sharing auth state.
        .target(
            name: "ExampleAuthState",
            dependencies: ["Vault"],
            path: "Examples/AuthState"
        ),
        .executableTarget(
            name: "ExampleApp",
            dependencies: ["Keyring", "Vault", "GroupMessaging", "SharedDefaults", "ExampleAuthState"],
            path: "Examples/App",
            exclude: ["App.entitlements"]
        ),
        .executableTarget(
            name: "ExampleWidget",
            dependencies: ["Keyring", "Vault", "GroupMessaging", "SharedDefaults", "ExampleAuthState"],
            path: "Examples/Widget",
            exclude: ["Widget.entitlements"]
        ),
        // The README's Swift snippets, verbatim (ReadmeSnippetTests checks that the README quotes
        // exactly these files), so every snippet compiles with the package.
        .executableTarget(
            name: "ReadmeKeychainItems",
            dependencies: ["Keyring"],
            path: "Examples/Readme/KeychainItems"
        ),
        .executableTarget(
            name: "ReadmeSealedRecords",
            dependencies: ["Keyring", "Vault"],
            path: "Examples/Readme/SealedRecords"
        ),
        .executableTarget(
            name: "ReadmeSharedData",
            dependencies: [
                "Keyring", "SharedDefaults", "GroupDatabase",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Examples/Readme/SharedData"
        ),
        .executableTarget(
            name: "ReadmeMessaging",
            dependencies: ["Keyring", "GroupMessaging"],
            path: "Examples/Readme/Messaging"
        ),
        .executableTarget(
            name: "ReadmeAppleCompatibility",
            dependencies: security,
            path: "Examples/Readme/AppleCompatibility"
        ),
        .executableTarget(
            name: "ReadmeSync",
            dependencies: ["Keyring", "GroupSync"],
            path: "Examples/Readme/Sync"
        ),
        // A child process for the multi-process and fault-injection tests: each test starts
        // real copies of it, so races and SIGKILLs happen between processes, not threads.
        .executableTarget(
            name: "GroupVaultFixture",
            dependencies: ["Keyring", "Vault", "SealedStorage", "FixtureSupport"] + security
        ),
        // GroupMessaging's child process, apart from GroupVaultFixture so that the Vault and
        // Keyring tests never link SwiftNIO.
        .executableTarget(
            name: "GroupMessagingFixture",
            dependencies: ["GroupMessaging", "Keyring", "SealedStorage", "FixtureSupport"]
        ),
        // The child process of the SharedDefaults and GroupDatabase multi-process tests: its own
        // executable so that GroupVaultFixture does not link GRDB.
        .executableTarget(
            name: "GroupStoresFixture",
            dependencies: ["SharedDefaults", "GroupDatabase", "Keyring", "Vault", "FixtureSupport"]
        ),
        // What the three fixtures above share: their option parsing and unbuffered output.
        .target(name: "FixtureSupport"),
        // libFuzzer targets for every parser (README, "Fuzzing"): one callback per parser,
        // shared by the GroupVaultFuzz driver and the corpus replay tests.
        .target(
            name: "FuzzTargets",
            dependencies: [
                "Keyring", "Vault", "SealedStorage", "GroupMessaging", "SharedDefaults",
                .product(name: "SystemPackage", package: "swift-system"),
                // The channel's frame decoder runs under NIO's own processor, as on a connection.
                .product(name: "NIOCore", package: "swift-nio"),
                // The sync-row target: rows a hostile sync server may send.
                "GroupSyncCore",
            ] + security
        ),
        // Runs a FuzzTargets callback under libFuzzer when built by scripts/fuzz (FUZZING, see
        // `fuzzRuntime` above), and otherwise replays corpus files through it.
        .executableTarget(
            name: "GroupVaultFuzz",
            dependencies: ["FuzzTargets"],
            swiftSettings: fuzzRuntime == nil ? [] : [.define("FUZZING")],
            linkerSettings: fuzzRuntime.map { runtime in
                [
                    .unsafeFlags(["-Xlinker", "--whole-archive", "-Xlinker", runtime, "-Xlinker", "--no-whole-archive"]),
                    // libFuzzer's runtime is C++.
                    .linkedLibrary("stdc++"),
                ]
            } ?? []
        ),
        // Shared by the test targets only: seeded randomness, temporary directories, and the
        // runner for GroupVaultFixture child processes.
        .target(
            name: "GroupVaultTestKit",
            // Keyring: removing a test's directory first closes what its keyring homes hold.
            // CSQLite: tests change a keyring database behind the library's back (OutsideSQL).
            dependencies: ["Keyring", "CSQLite"],
            path: "Tests/GroupVaultTestKit"
        ),
        .testTarget(
            name: "SealedStorageTests",
            dependencies: [
                "SealedStorage", "GroupVaultTestKit", "GroupVaultFixture",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "KeyringTests",
            dependencies: ["Keyring", "SealedStorage", "GroupVaultTestKit", "GroupVaultFixture"]
        ),
        // Replays the committed libFuzzer corpus (Fuzz/Corpus) through every target; runs the
        // reproducers of open crashes in GroupVaultFuzz child processes.
        .testTarget(
            name: "FuzzCorpusTests",
            dependencies: ["FuzzTargets", "GroupVaultFuzz", "GroupVaultTestKit"]
        ),
        .testTarget(
            name: "GroupMessagingTests",
            dependencies: [
                "GroupMessaging", "Keyring", "SealedStorage", "GroupVaultTestKit", "GroupMessagingFixture", "GroupVaultFixture", "vaultcli",
                // FilePath, for the watcher the notification tests observe through.
                .product(name: "SystemPackage", package: "swift-system"),
                // The channel's handlers are tested one by one in an EmbeddedChannel; NIOPosix
                // tells a test whether a handler runs on an event loop.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // What the diagnostics tests capture logs and metrics with.
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "SharedDefaultsTests",
            dependencies: [
                "SharedDefaults", "Vault", "Keyring", "GroupVaultTestKit", "GroupStoresFixture",
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "GroupDatabaseTests",
            dependencies: [
                "GroupDatabase", "Keyring", "GroupVaultTestKit", "GroupStoresFixture", "SealedStorage",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "vaultcliTests",
            dependencies: ["Keyring", "Vault", "SealedStorage", "GroupVaultTestKit", "vaultcli"]
        ),
        // The README's test snippet (TokenStoreTests.swift), run; the check that every Swift
        // snippet of the README is the source of a compiled file; each snippet run twice in one
        // home (the Readme* executables, and vaultcli as the messaging snippet's server); and the
        // sync section's shell block run as written (two homes and a PostgreSQL server).
        .testTarget(
            name: "ReadmeSnippetTests",
            dependencies: [
                "KeyringTestSupport", "GroupVaultTestKit",
                "ReadmeKeychainItems", "ReadmeSealedRecords", "ReadmeSharedData", "ReadmeMessaging", "ReadmeSync", "vaultcli",
            ] + security
        ),
        .testTarget(
            name: "VaultTests",
            dependencies: [
                "Vault", "Keyring", "SealedStorage", "GroupVaultTestKit", "GroupVaultFixture",
                .product(name: "SystemPackage", package: "swift-system"),
                // What the diagnostics tests capture logs and metrics with.
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            // A home of the sealed-JSON layout, read from the source tree by LegacyHomeTests.
            exclude: ["Fixtures"]
        ),
        // What GroupSync reads from and writes to its server, without the client that talks to it:
        // names, sealing and the judge of every row (docs/SYNC.md, sections 4, 5 and 7). Apart
        // from GroupSync so that the sync-row fuzz target builds without postgres-nio.
        .target(
            name: "GroupSyncCore",
            dependencies: ["Vault", "Keyring", "SealedStorage"]
        ),
        // A group's sealed state across machines on PostgreSQL (docs/SYNC.md). The only module
        // that depends on postgres-nio.
        .target(
            name: "GroupSync",
            dependencies: [
                "GroupSyncCore",
                "Vault",
                "Keyring",
                "SealedStorage",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // Already linked through postgres-nio: named for the connection failures it
                // wraps, whose system errors a sync error reports.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // The session's reconnects, through the keyring's logger and metrics factory.
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // GroupSync's child process: one "machine" with its own home, so multi-machine tests
        // run real processes; apart from the other fixtures so that they never link postgres-nio.
        .executableTarget(
            name: "GroupSyncFixture",
            dependencies: ["GroupSync", "Vault", "Keyring", "SealedStorage", "FixtureSupport"]
        ),
        // A throw-away PostgreSQL cluster per test (initdb in a temporary directory, a Unix
        // socket there, stopped on exit), shared by the sync tests and benchmarks.
        .target(
            name: "GroupSyncTestKit",
            dependencies: ["GroupVaultTestKit"],
            path: "Tests/GroupSyncTestKit"
        ),
        .testTarget(
            name: "GroupSyncTests",
            dependencies: [
                "GroupSync", "Vault", "Keyring", "SealedStorage", "GroupVaultTestKit", "GroupSyncTestKit",
                "GroupSyncFixture", "vaultcli",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            exclude: ["Fixtures"],
            // groupsync_independent.py: the protocol written again in Python from docs/SYNC.md.
            resources: [.copy("Resources")]
        ),
    ] + securityTargets,
    swiftLanguageModes: [.v6]
)

if coreScopeOnly {
    let coreTargets: Set<String> = [
        "CSodium", "CSQLite", "CFileLayer", "SealedStorage", "Keyring", "Vault",
        "FixtureSupport", "GroupVaultFixture", "GroupVaultTestKit",
        "SealedStorageTests", "KeyringTests", "VaultTests",
    ]
    package.products = package.products.filter { coreTargets.contains($0.name) }
    package.targets = package.targets.filter { coreTargets.contains($0.name) }
}

// scripts/sanitize and scripts/fuzz set `GROUPVAULT_INSTRUMENTATION=fuzzer` for their builds: the
// package's own targets are then compiled with AddressSanitizer, and the Swift ones with the
// coverage libFuzzer needs, while its dependencies are compiled as in a plain build. In the same
// build directory as `make test`'s, that build compiles only the package's own code again, not
// SwiftNIO, GRDB, BoringSSL and postgres-nio (docs/ARCHITECTURE.md, "The ASan build instruments
// the package's own code").
if Context.environment["GROUPVAULT_INSTRUMENTATION"] == "fuzzer" {
    for target in package.targets where [.regular, .executable, .test].contains(target.type) {
        target.swiftSettings = (target.swiftSettings ?? []) + [
            .unsafeFlags([
                "-sanitize=address",
                "-sanitize-coverage=edge,indirect-calls,trace-cmp,inline-8bit-counters,pc-table",
            ]),
        ]
        target.cSettings = (target.cSettings ?? []) + [.unsafeFlags(["-fsanitize=address"])]
        // The linker links ASan's runtime only when told to: every product that links this target.
        target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-sanitize=address"])]
    }
}
