/// What a contender is in its figure, which decides how the report uses it.
enum Role: Sendable {
    /// The GroupVault operation the figure is about.
    case groupVault
    /// The floor: the least work that does what the operation does; the ratio's denominator.
    case floor
    /// Context, never a denominator. `lessWork` says what it skips that the operation must
    /// do (a non-durable write, say), or is `nil` for a comparable alternative.
    case reference(lessWork: String?)
    /// What a Linux user would pick instead (SQLCipher, the kernel keyring, D-Bus), run in the
    /// same rounds; the report prints GroupVault's median over its median. `lessWork` as for a
    /// reference (the kernel keyring writes nothing to disk, say).
    case peer(lessWork: String?)
}

/// One operation of a figure: it runs once per round and reports its own cost.
struct Contender {
    /// How the report names it.
    let label: String
    /// What it is in the figure.
    let role: Role
    /// Runs the operation once and returns its duration (and for processes, peak RSS).
    /// It times only the operation itself, so untimed set-up and clean-up (deleting the item
    /// an `add` just added) stay out of the figure.
    let run: () throws -> Measurement
}

/// One run of a contender.
struct Measurement {
    /// Wall-clock time of the operation.
    var microseconds: Double
    /// Peak resident set size of a child process, for process figures.
    var peakKiB: Double?

    /// The duration measured by `clock` around `body`.
    static func timing(_ body: () throws -> Void) rethrows -> Measurement {
        Measurement(microseconds: try ContinuousClock().measure(body).microseconds)
    }
}

/// How long a figure runs: rounds, bounded by a wall-clock budget.
struct Schedule: Sendable {
    /// Untimed rounds first, to fill caches and let allocator and page-cache state settle.
    var warmupRounds: Int
    /// Rounds to time when the budget allows.
    var rounds: Int
    /// Rounds to time even past the budget, so median and p99 mean something.
    var minimumRounds: Int
    /// Once this much wall time has gone into a figure (warm-up included), it stops after
    /// `minimumRounds`; the report prints how many rounds each figure got.
    var budget: Duration
    /// A figure whose `rounds` are over sooner goes on, up to `maximumRounds`, until its timed
    /// rounds span this much time. Two hundred rounds of a warm read and its contenders take
    /// about 20 ms, and on the 2-core VM one such moment in which this process ran
    /// slower (every in-process contender, its floor too, by up to half again, the child
    /// processes not) moved a figure's ratio to a peer by a factor of two.
    var minimumSpan: Duration = .zero
    /// The most rounds ``minimumSpan`` adds up to.
    var maximumRounds = 0
}

/// A contender's results.
struct ContenderResult {
    /// The contender measured.
    let contender: Contender
    /// Its times in microseconds, one set per run: one run for most figures, several for a
    /// flush-bound one (``measureFlushBound(_:runs:_:)``).
    let runs: [Samples]
    /// Its peak RSS figures in KiB, when it reported them.
    let peaks: Samples?

    /// Every timed round of every run: for the round count, and for a one-run figure its
    /// order statistics.
    var times: Samples { runs.count == 1 ? runs[0] : Samples(runs.flatMap(\.sorted)) }

    /// The median the report compares: the run's median, or the median of the runs' medians
    /// (the upper one of an even count), so one run that met a burst of writeback from
    /// another process moves it no more than one sample moves a median.
    var median: Double { runs.count == 1 ? runs[0].median : Samples(runs.map(\.median)).median }
}

/// Runs `contenders` interleaved: each round runs every contender once (A B C, A B C, ...),
/// starting one further along each round (A B C, B C A, C A B), so no contender always follows
/// the same one and all share the same moments of the machine's load, page cache and fsync
/// queue. Separate blocks (all A, then all B) would let a burst of load from another process
/// fall on one contender only and skew the ratio.
func interleave(_ contenders: [Contender], _ schedule: Schedule) throws -> [ContenderResult] {
    let clock = ContinuousClock()
    let start = clock.now
    for round in 0..<schedule.warmupRounds {
        for offset in contenders.indices {
            _ = try contenders[(round + offset) % contenders.count].run()
        }
        if clock.now - start > schedule.budget / 2 { break }
    }
    var times = Array(repeating: [Double](), count: contenders.count)
    var peaks = Array(repeating: [Double](), count: contenders.count)
    var round = 0
    let timedStart = clock.now
    func wantsMore() -> Bool {
        round < schedule.rounds || (round < schedule.maximumRounds && clock.now - timedStart < schedule.minimumSpan)
    }
    while wantsMore(), round < schedule.minimumRounds || clock.now - start < schedule.budget {
        for offset in contenders.indices {
            let index = (round + offset) % contenders.count
            let measurement = try contenders[index].run()
            times[index].append(measurement.microseconds)
            if let peak = measurement.peakKiB { peaks[index].append(peak) }
        }
        round += 1
    }
    return contenders.indices.map { index in
        ContenderResult(
            contender: contenders[index], runs: [Samples(times[index])],
            peaks: peaks[index].isEmpty ? nil : Samples(peaks[index]))
    }
}
