/// The timings of one operation, and the order statistics the report prints.
///
/// Order statistics rather than a mean: file-system operations have a long tail (an fsync that
/// waits for another process's writeback), and one slow iteration would drag a mean far from
/// what a caller usually sees.
struct Samples: Sendable {
    /// Every timed iteration, sorted ascending.
    let sorted: [Duration]

    /// Keeps `durations` sorted so each statistic is an index.
    init(_ durations: [Duration]) {
        precondition(!durations.isEmpty, "an operation needs at least one timed iteration")
        sorted = durations.sorted()
    }

    /// The fastest iteration: the cost with the least interference.
    var minimum: Duration { sorted[0] }
    /// The middle iteration (upper median for an even count).
    var median: Duration { sorted[sorted.count / 2] }
    /// The iteration below which 90 % of them fall (nearest rank).
    var p90: Duration { sorted[Int((Double(sorted.count - 1) * 0.9).rounded(.up))] }
}

extension Duration {
    /// The duration in microseconds, the unit every figure in the report uses.
    var microseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e6 + Double(attoseconds) * 1e-12
    }
}

/// Runs `body` `warmup` times untimed, then `iterations` times, and keeps the durations it
/// reports.
///
/// `body` times its own critical section with ``ContinuousClock`` and returns it, so per-iteration
/// setup and clean-up (deleting the item an `add` just added) stay outside the figure.
/// Warm-up iterations fill caches and let page-cache and allocator state settle before counting.
func sample(warmup: Int, iterations: Int, _ body: () throws -> Duration) rethrows -> Samples {
    for _ in 0..<warmup { _ = try body() }
    var durations: [Duration] = []
    durations.reserveCapacity(iterations)
    for _ in 0..<iterations { durations.append(try body()) }
    return Samples(durations)
}
