// swift-tools-version:6.1
import PackageDescription

// A package of its own so the library's build, and its users' builds, never compile the
// benchmarks. It sees GroupVault only as a user does: through the public Keyring and Vault products.
let package = Package(
    name: "GroupVaultBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "GroupVault", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "GroupVaultBenchmarks",
            dependencies: [
                .product(name: "Keyring", package: "GroupVault"),
                .product(name: "Vault", package: "GroupVault"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
