/// The values of one contender over a run, and the order statistics the report prints.
///
/// Order statistics rather than a mean: file-system operations have a long tail (an fsync that
/// waits for another process's writeback), and one slow iteration would drag a mean far from
/// what a caller usually sees; p99 shows that tail instead of hiding it.
struct Samples: Sendable {
    /// Every value, sorted ascending.
    let sorted: [Double]

    /// Keeps `values` sorted so each statistic is an index.
    init(_ values: [Double]) {
        precondition(!values.isEmpty, "a contender needs at least one timed iteration")
        sorted = values.sorted()
    }

    /// How many values there are.
    var count: Int { sorted.count }
    /// The middle value (upper median for an even count).
    var median: Double { sorted[sorted.count / 2] }
    /// The value 99 % of them do not exceed (nearest rank): the largest one below 100 values.
    var p99: Double { sorted[max(0, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)] }
    /// The sum of every value.
    var total: Double { sorted.reduce(0, +) }
}

extension Duration {
    /// The duration in microseconds, the unit of every time in the report.
    var microseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e6 + Double(attoseconds) * 1e-12
    }
}
