import XCTest

/// A reproducible random number generator (SplitMix64) for fuzz and model-based tests.
///
/// The seed comes from `GROUPVAULT_SEED` when set (to replay a failure), else from the clock;
/// ``describe`` goes into every assertion message so a failing run prints how to replay it.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The seed this generator started from.
    public let seed: UInt64
    private var state: UInt64

    /// A generator seeded from `GROUPVAULT_SEED` or, when unset, from the clock.
    public init() {
        if let text = ProcessInfo.processInfo.environment["GROUPVAULT_SEED"], let seed = UInt64(text) {
            self.init(seed: seed)
        } else {
            self.init(seed: UInt64(Date().timeIntervalSince1970 * 1_000_000) & 0xFFFF_FFFF_FFFF)
        }
    }

    /// A generator seeded with `seed`.
    public init(seed: UInt64) {
        self.seed = seed
        self.state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Random bytes.
    public mutating func bytes(count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &self) }
    }

    /// "seed 1234 (replay with GROUPVAULT_SEED=1234)": put this in assertion messages.
    public var describe: String { "seed \(seed) (replay with GROUPVAULT_SEED=\(seed))" }
}
