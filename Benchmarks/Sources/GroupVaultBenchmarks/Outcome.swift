import Foundation

/// Whether a target of the issue is met.
enum Verdict {
    /// Within the target.
    case met
    /// Outside it; `factor` is how many times over (or under, for throughput) the limit it is.
    case missed(factor: Double)
    /// Not measured as the target states it (a size not reached in the budget); `reason` says
    /// what was measured instead.
    case notMeasured(reason: String)

    /// The verdict as the report prints it.
    var text: String {
        switch self {
        case .met: "met"
        // Two decimals within 5% of the limit, where one would read "1.0×" for a miss.
        case .missed(let factor): String(format: factor < 1.05 ? "**missed** (%.2f× the limit)" : "**missed** (%.1f× the limit)", factor)
        case .notMeasured(let reason): "not measured: \(reason)"
        }
    }
}

/// One target of the issue, checked against this run.
struct TargetCheck {
    /// The figure checked, e.g. "warm `Vault.read`, 1,000 records".
    let figure: String
    /// What was measured, e.g. "median 210 µs = 53.1× C read+open (3.9 µs)".
    let measured: String
    /// The target, e.g. "≤ 5× C read+open".
    let target: String
    /// Met or missed.
    let verdict: Verdict

    /// A ratio target: `ratio` must not exceed `limit`.
    static func ratio(_ figure: String, ratio: Double, limit: Double, measured: String, target: String) -> TargetCheck {
        TargetCheck(figure: figure, measured: measured, target: target,
                    verdict: ratio <= limit ? .met : .missed(factor: ratio / limit))
    }

    /// A ratio target between two contenders of `results`: the median of `measured` over the
    /// median of `denominator` must not exceed `limit`; the text gives both medians, the
    /// denominator called `name` ("median 210 µs = 53.1× C read+open (3.95 µs)").
    static func ratio(
        _ figure: String, of measured: String, over denominator: String, named name: String,
        in results: [ContenderResult], limit: Double, target: String
    ) -> TargetCheck {
        .ratio(figure, ratio: result(measured, in: results).median / result(denominator, in: results).median, limit: limit,
               measured: ratioText(results, measured, denominator, floorName: name), target: target)
    }

    /// A throughput target: `rate` must reach `minimum`.
    static func throughput(_ figure: String, rate: Double, minimum: Double, measured: String, target: String) -> TargetCheck {
        TargetCheck(figure: figure, measured: measured, target: target,
                    verdict: rate >= minimum ? .met : .missed(factor: minimum / rate))
    }
}

/// A Markdown table.
struct Table {
    /// Column titles.
    let header: [String]
    /// Rows of cells, as many as the header has columns.
    var rows: [[String]] = []

    /// The table in Markdown; the first two columns (what and which kind) left-aligned, the
    /// figures right-aligned.
    var markdown: [String] {
        ["| " + header.joined(separator: " | ") + " |",
         "|---|---" + String(repeating: "|---:", count: header.count - 2) + "|"]
            + rows.map { "| " + $0.joined(separator: " | ") + " |" }
    }
}

/// One figure as the report shows it: a heading, notes, a table.
struct Section {
    /// The heading.
    let title: String
    /// Paragraphs before the table: what is measured, sizes actually reached.
    var notes: [String]
    /// The figures.
    let table: Table
}

/// Everything one run measured.
struct Outcome {
    /// Sections in the order measured.
    var sections: [Section] = []
    /// Every target checked.
    var checks: [TargetCheck] = []
    /// Stages not measured, with the reason (a size not reached).
    var skipped: [String] = []

    mutating func append(_ other: Outcome) {
        sections += other.sections
        checks += other.checks
        skipped += other.skipped
    }
}

/// The standard table of a timed figure: each contender's median and p99 and, for all but the
/// floor, its median over the floor's median; with peers, a last column with GroupVault's
/// median over each peer's. A flush-bound figure measured in several runs shows each run's
/// median and p99, and compares the medians of the run medians.
func timeTable(_ results: [ContenderResult]) -> Table {
    let floor = results.first { if case .floor = $0.contender.role { true } else { false } }
    let groupVault = results.first { if case .groupVault = $0.contender.role { true } else { false } }
    let hasPeers = results.contains { if case .peer = $0.contender.role { true } else { false } }
    let runs = results.first?.runs.count ?? 1
    let statistics = runs == 1
        ? ["n", "Median µs", "p99 µs"]
        : ["n (each run)", "Median of the \(runs) run medians µs", "Run medians µs", "Run p99s µs"]
    var table = Table(header: ["Operation", "Kind"] + statistics + ["Median ÷ floor"] + (hasPeers ? ["GroupVault ÷ peer"] : []))
    for result in results {
        var peerRatio = ""
        var ratio = ""
        let kind = result.contender.role.kind
        if case .peer = result.contender.role, let groupVault {
            peerRatio = times(groupVault.median / result.median)
        }
        if let floor, result.contender.label != floor.contender.label {
            ratio = times(result.median / floor.median)
        }
        let figures = runs == 1
            ? ["\(result.times.count)", microseconds(result.median), microseconds(result.times.p99)]
            : [result.runs.map { "\($0.count)" }.joined(separator: " + "), microseconds(result.median),
               result.runs.map { microseconds($0.median) }.joined(separator: " / "),
               result.runs.map { microseconds($0.p99) }.joined(separator: " / ")]
        table.rows.append([result.contender.label, kind] + figures + [ratio] + (hasPeers ? [peerRatio] : []))
    }
    return table
}

extension Role {
    /// The "Kind" column of a table.
    var kind: String {
        switch self {
        case .groupVault: "GroupVault"
        case .floor: "**floor**"
        case .reference(let lessWork): lessWork.map { "reference; does less: \($0)" } ?? "reference"
        case .peer(let lessWork): lessWork.map { "**peer**; does less: \($0)" } ?? "**peer**"
        }
    }
}

/// A time in microseconds with precision that suits its size.
func microseconds(_ value: Double) -> String {
    value < 10 ? String(format: "%.2f", value) : value < 1000 ? String(format: "%.1f", value) : String(format: "%.0f", value)
}

/// A ratio as the report prints it: 53.12×.
func times(_ ratio: Double) -> String { String(format: "%.2f×", ratio) }

/// An integer with thousands separators: 10,000.
func count(_ value: Int) -> String {
    let digits = String(value)
    var result = ""
    for (offset, character) in digits.enumerated() {
        if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
        result.append(character)
    }
    return result
}

/// Finds the contender labelled `label`; the figure code names them, so absence is a bug.
func result(_ label: String, in results: [ContenderResult]) -> ContenderResult {
    guard let found = results.first(where: { $0.contender.label == label }) else {
        preconditionFailure("no contender labelled \(label)")
    }
    return found
}

/// A benchmark that could not measure what it set out to: the run stops with this reason.
struct BenchmarkFailure: Error, CustomStringConvertible {
    /// What went wrong, for the person running the benchmark.
    let description: String

    /// A failure with `description` as its reason.
    init(_ description: String) { self.description = description }
}

/// Progress for the person waiting, on standard error (the report may be on standard output).
func progress(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
