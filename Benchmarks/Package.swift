// swift-tools-version:6.1
import PackageDescription

// A package of its own so the library's build, and its users' builds, never compile the
// benchmarks. It sees GroupVault only as a user does: through the public Keyring and Vault
// products. Its C floors use the system libsodium and libsqlite3 directly (pkg-config), the
// same libraries GroupVault builds on, so a ratio compares GroupVault with the least work
// those libraries allow.
let package = Package(
    name: "GroupVaultBenchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "GroupVaultBenchmarks", targets: ["GroupVaultBenchmarks"]),
    ],
    dependencies: [
        .package(name: "GroupVault", path: ".."),
        // The unsealed SwiftNIO echo beside the channel round trip: the same event loops and
        // framing GroupMessaging uses, without sealing (the version GroupVault itself requires).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The sync figures' floors: bare INSERT + NOTIFY to LISTEN, and a batched SELECT, with the
        // PostgreSQL client GroupSync itself uses (the version GroupVault requires).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .systemLibrary(name: "CLibsodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "BenchSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The floors: each GroupVault figure's least possible cost, in plain C.
        // The floors, and the kernel keyring peer (keyutils: plain system calls, nothing to clash with).
        .target(name: "Floors", dependencies: ["CLibsodium", "BenchSQLite"], linkerSettings: [.linkedLibrary("pthread"), .linkedLibrary("keyutils")]),
        // The peers' C processes (SQLCipherChild, NotificationPeers) and ProcessMeter are not
        // targets here: SwiftPM links every executable with the Swift runtime, which a C user's
        // process never loads. build-c-programs compiles them with the C compiler (C/).
        // What the benchmark and its child processes share: the record type and the home.
        .target(
            name: "BenchModel",
            dependencies: [
                .product(name: "Keyring", package: "GroupVault"),
                .product(name: "Vault", package: "GroupVault"),
            ]
        ),
        .executableTarget(
            name: "GroupVaultBenchmarks",
            dependencies: [
                "Floors", "BenchModel",
                .product(name: "Keyring", package: "GroupVault"),
                .product(name: "Vault", package: "GroupVault"),
                .product(name: "GroupMessaging", package: "GroupVault"),
                .product(name: "SharedDefaults", package: "GroupVault"),
                .product(name: "GroupSync", package: "GroupVault"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Child processes the benchmark starts, each a real program of its own.
        .executableTarget(
            name: "GroupVaultChild",
            dependencies: [
                "BenchModel",
                .product(name: "Keyring", package: "GroupVault"),
                .product(name: "Vault", package: "GroupVault"),
            ]
        ),
        // The other end of the notification figure: answers each "ping" with a "pong". A program
        // of its own so the cold-read child links no messaging code.
        .executableTarget(
            name: "NotificationEcho",
            dependencies: [
                "BenchModel",
                .product(name: "GroupMessaging", package: "GroupVault"),
            ]
        ),
        // The other machine of the sync figures: a home of its own that reports each change it
        // observes, through GroupSync and through a bare LISTEN, on its standard output.
        .executableTarget(
            name: "SyncObserver",
            dependencies: [
                "BenchModel",
                .product(name: "GroupSync", package: "GroupVault"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .executableTarget(name: "HelloSwift"),
        .executableTarget(name: "HelloFoundation"),
    ],
    swiftLanguageModes: [.v6]
)
