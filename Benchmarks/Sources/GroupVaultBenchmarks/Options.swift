/// The command line, parsed by hand: a few options do not justify a dependency.
///
///     GroupVaultBenchmarks [--quick] [--output PATH] [--note TEXT] [--analysis PATH] [--figures storage,messaging,defaults,sync] [--sizes 10,1000,10000] [--records N]
///                          [--rounds N] [--warmup N] [--budget SECONDS]
///                          [--population-budget SECONDS] [--throughput-budget SECONDS]
///                          [--flush-runs N] [--verify-passes N] [--reseal-passes N] [--reseal-pass-budget SECONDS]
struct Options {
    /// Where to write the report; standard output when `nil`.
    var output: String?
    /// A line printed at the top of the report, e.g. which storage implementation was measured.
    var note: String?
    /// A Markdown file whose text the report includes under "Why targets are missed": the
    /// explanation, from a profile, that a missed target needs and a benchmark cannot produce.
    var analysis: String?
    /// Whether this is a `--quick` development run (figures not for BENCHMARKS.md).
    var quick = false
    /// Group sizes (records, items) the per-group figures are measured at.
    var sizes = [10, 1_000, 10_000]
    /// The groups of figures a run measures.
    enum FigureGroup: String, CaseIterable {
        /// Vault and Keyring figures, the cold read, verify and reseal.
        case storage
        /// Notifications and the channel.
        case messaging
        /// SharedDefaults.
        case defaults
        /// GroupSync, on a PostgreSQL server the run starts and stops.
        case sync
    }
    /// Which groups of figures to measure (`--figures`); all of them unless told.
    var figures = Set(FigureGroup.allCases)
    /// Suite sizes (keys) the SharedDefaults figures are measured at.
    var defaultsSizes = [10, 5_000]
    /// Records in the group `verify` and `reseal` run over.
    var records = 10_000
    /// Timed rounds per figure when its budget allows.
    var rounds = 200
    /// Untimed rounds before each figure.
    var warmup = 10
    /// Wall-time budget of one figure, in seconds; it then stops after ``minimumRounds``.
    var budget = 15.0
    /// Rounds every figure gets even past its budget.
    var minimumRounds = 10
    /// Wall time, in seconds, that a figure's timed rounds span at least, when ``maximumRounds``
    /// and its budget allow (``Schedule/minimumSpan``); flush-bound runs are exempt.
    var span = 1.0
    /// The most timed rounds a figure gets to span ``span``.
    var maximumRounds = 5_000
    /// Wall time, in seconds, allowed for filling a group (per group kind: vault records,
    /// keyring items) up to the largest size; sizes not reached in it are measured at the size
    /// reached, and the report says so.
    var populationBudget = 120.0
    /// Wall time, in seconds, after which `records verify` starts no further pair of passes
    /// (`--throughput-budget`); a pass already started is finished.
    var throughputBudget = 60.0
    /// Passes of `verifyAll`, each followed by a pass of its floor (`--verify-passes`).
    var verifyPasses = 5
    /// Runs of every flush-bound figure (`--flush-runs`, at least 3), each with half a figure's
    /// rounds and budget (``flushSchedule``).
    var flushRuns = 3
    /// Passes of `resealAll`, each followed by a pass of its floor (`--reseal-passes`).
    var resealPasses = 3
    /// Wall time, in seconds, of each reseal pass, either side's (`--reseal-pass-budget`); a
    /// pass stopped by it reports the records it covered. Long enough for a whole `resealAll`
    /// pass over 10,000 records at the last report's 342 records/s.
    var resealPassBudget = 40.0
    /// Rounds of the cold-read figure (three processes each).
    var coldRounds = 60

    static let usage = """
        usage: GroupVaultBenchmarks [--quick] [--output PATH] [--note TEXT] [--analysis PATH] [--figures storage,messaging,defaults,sync] [--sizes 10,1000,10000] [--records N]
                                                    [--rounds N] [--warmup N] [--budget SECONDS] [--span SECONDS] [--maximum-rounds N]
                                                    [--population-budget SECONDS] [--throughput-budget SECONDS]
                                                    [--flush-runs N] [--verify-passes N] [--reseal-passes N] [--reseal-pass-budget SECONDS]
        """

    /// Parses `arguments` (without the program name), or explains what is wrong.
    init(_ arguments: [String]) throws {
        var remaining = arguments[...]
        // --quick first, so explicit options given with it still win.
        if remaining.contains("--quick") {
            quick = true
            sizes = [10, 100, 1_000]
            defaultsSizes = [10, 500]
            records = 1_000
            rounds = 30
            warmup = 2
            budget = 3
            minimumRounds = 5
            span = 0
            populationBudget = 20
            throughputBudget = 10
            resealPassBudget = 3
            coldRounds = 10
        }
        func positive(_ flag: String, _ value: String) throws -> Int {
            guard let number = Int(value), number > 0 else { throw BenchmarkFailure("\(flag) needs a positive integer\n\(Self.usage)") }
            return number
        }
        func seconds(_ flag: String, _ value: String) throws -> Double {
            guard let number = Double(value), number > 0, number.isFinite else { throw BenchmarkFailure("\(flag) needs a positive number of seconds\n\(Self.usage)") }
            return number
        }
        while let flag = remaining.popFirst() {
            if flag == "--quick" { continue }
            guard let value = remaining.popFirst() else { throw BenchmarkFailure("\(flag) needs a value\n\(Self.usage)") }
            switch flag {
            case "--output": output = value
            case "--note": note = value
            case "--analysis": analysis = value
            case "--sizes":
                let parsed = value.split(separator: ",").map { Int($0) }
                guard !parsed.isEmpty, parsed.allSatisfy({ ($0 ?? 0) > 0 }) else {
                    throw BenchmarkFailure("--sizes needs positive integers separated by commas\n\(Self.usage)")
                }
                sizes = parsed.compactMap { $0 }.sorted()
            case "--figures":
                let parsed = value.split(separator: ",").map { FigureGroup(rawValue: String($0)) }
                guard !parsed.isEmpty, parsed.allSatisfy({ $0 != nil }) else {
                    throw BenchmarkFailure("--figures needs some of \(FigureGroup.allCases.map(\.rawValue).joined(separator: ",")), separated by commas\n\(Self.usage)")
                }
                figures = Set(parsed.compactMap { $0 })
            case "--records": records = try positive(flag, value)
            case "--rounds": rounds = try positive(flag, value)
            case "--warmup":
                guard let number = Int(value), number >= 0 else { throw BenchmarkFailure("--warmup needs a non-negative integer\n\(Self.usage)") }
                warmup = number
            case "--budget": budget = try seconds(flag, value)
            case "--span":
                guard let number = Double(value), number >= 0, number.isFinite else { throw BenchmarkFailure("--span needs a non-negative number of seconds\n\(Self.usage)") }
                span = number
            case "--maximum-rounds": maximumRounds = try positive(flag, value)
            case "--population-budget": populationBudget = try seconds(flag, value)
            case "--throughput-budget": throughputBudget = try seconds(flag, value)
            case "--flush-runs":
                // Issue 19: a flush-bound figure is the median of at least three runs.
                guard let number = Int(value), number >= 3 else {
                    throw BenchmarkFailure("--flush-runs needs an integer of at least 3: a flush-bound figure is the median of at least three runs\n\(Self.usage)")
                }
                flushRuns = number
            case "--verify-passes": verifyPasses = try positive(flag, value)
            case "--reseal-passes": resealPasses = try positive(flag, value)
            case "--reseal-pass-budget": resealPassBudget = try seconds(flag, value)
            default: throw BenchmarkFailure("unknown option \(flag)\n\(Self.usage)")
            }
        }
        minimumRounds = min(minimumRounds, rounds)
    }

    /// The schedule of every timed figure.
    var schedule: Schedule {
        Schedule(
            warmupRounds: warmup, rounds: rounds, minimumRounds: minimumRounds, budget: .seconds(budget),
            minimumSpan: .seconds(span), maximumRounds: maximumRounds)
    }

    /// The schedule of each run of a flush-bound figure: half the warm-up, rounds and budget
    /// of any other figure, so its three runs take at most half as long again as one run did,
    /// and never fewer than ``minimumRounds`` rounds.
    var flushSchedule: Schedule {
        Schedule(warmupRounds: warmup / 2, rounds: max(rounds / 2, minimumRounds), minimumRounds: minimumRounds, budget: .seconds(budget / 2))
    }
}
