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
    ],
    targets: [
        .systemLibrary(name: "CLibsodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The floors: each GroupVault figure's least possible cost, in plain C.
        .target(name: "Floors", dependencies: ["CLibsodium", "CSQLite"]),
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
            ]
        ),
        // Child processes the benchmark starts, each a real program of its own.
        .executableTarget(
            name: "GroupVaultChild",
            dependencies: [
                "BenchModel",
                .product(name: "Vault", package: "GroupVault"),
            ]
        ),
        .executableTarget(name: "HelloSwift"),
        .executableTarget(name: "HelloFoundation"),
        .executableTarget(name: "ProcessMeter"),
    ],
    swiftLanguageModes: [.v6]
)
