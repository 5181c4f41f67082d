// swift-tools-version:6.1
import PackageDescription

// Dependencies are chosen, not accumulated (see README "Dependencies"):
// - libsodium (system library) for every cryptographic operation;
// - libsqlite3 (system library) for the keyring's store;
// - swift-system for file descriptors, paths and errno values instead of hand-written wrappers;
// - swift-argument-parser for vaultcli.
let package = Package(
    name: "GroupVault",
    // Mutex (Synchronization) needs macOS 15 on Apple platforms; Linux has no such floor.
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Keyring", targets: ["Keyring"]),
        .library(name: "Vault", targets: ["Vault"]),
        .library(name: "KeyringTestSupport", targets: ["KeyringTestSupport"]),
        .executable(name: "vaultcli", targets: ["vaultcli"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
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
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "Keyring",
            dependencies: [
                "SealedStorage",
                "CSQLite",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "Vault",
            dependencies: [
                "Keyring",
                "SealedStorage",
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
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
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
            dependencies: ["Keyring", "Vault", "ExampleAuthState"],
            path: "Examples/App",
            exclude: ["App.entitlements"]
        ),
        .executableTarget(
            name: "ExampleWidget",
            dependencies: ["Keyring", "Vault", "ExampleAuthState"],
            path: "Examples/Widget",
            exclude: ["Widget.entitlements"]
        ),
        // A child process for the multi-process and fault-injection tests: each test starts
        // real copies of it, so races and SIGKILLs happen between processes, not threads.
        .executableTarget(
            name: "GroupVaultFixture",
            dependencies: ["Keyring", "Vault", "SealedStorage"]
        ),
        // libFuzzer targets for every parser (README, "Fuzzing"): one callback per parser,
        // shared by the GroupVaultFuzz driver and the corpus replay tests.
        .target(
            name: "FuzzTargets",
            dependencies: [
                "Keyring", "Vault", "SealedStorage",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // Runs a FuzzTargets callback under libFuzzer when built by scripts/fuzz (-DFUZZING),
        // and otherwise replays corpus files through it.
        .executableTarget(
            name: "GroupVaultFuzz",
            dependencies: ["FuzzTargets"]
        ),
        // Shared by the test targets only: seeded randomness, temporary directories, and the
        // runner for GroupVaultFixture child processes.
        .target(
            name: "GroupVaultTestKit",
            path: "Tests/GroupVaultTestKit"
        ),
        .testTarget(
            name: "SealedStorageTests",
            dependencies: [
                "SealedStorage", "GroupVaultTestKit",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "KeyringTests",
            dependencies: ["Keyring", "SealedStorage", "GroupVaultTestKit", "GroupVaultFixture"]
        ),
        .testTarget(
            name: "SecItemTests",
            dependencies: ["Keyring", "KeyringTestSupport", "SealedStorage", "GroupVaultTestKit", "GroupVaultFixture"]
        ),
        // Replays the committed libFuzzer corpus (Fuzz/Corpus) through every target; runs the
        // reproducers of open crashes in GroupVaultFuzz child processes.
        .testTarget(
            name: "FuzzCorpusTests",
            dependencies: ["FuzzTargets", "GroupVaultFuzz", "GroupVaultTestKit"]
        ),
        .testTarget(
            name: "vaultcliTests",
            dependencies: ["Keyring", "Vault", "GroupVaultTestKit", "vaultcli"]
        ),
        .testTarget(
            name: "VaultTests",
            dependencies: [
                "Vault", "Keyring", "SealedStorage", "GroupVaultTestKit", "GroupVaultFixture",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            // A home of the sealed-JSON layout, read from the source tree by LegacyHomeTests.
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
