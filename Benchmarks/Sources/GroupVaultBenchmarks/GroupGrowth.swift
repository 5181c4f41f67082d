/// Fills a group one public call at a time, up to a size or a deadline, whichever comes first.
///
/// The figures are per group size, and the sizes build on each other (10, then 1,000, then
/// 10,000), so a group is filled once. Filling goes through the public API like everything
/// else, so with storage whose writes cost more as a group grows, the largest size may not be
/// reachable in reasonable time; the deadline stops it and the report states the size actually
/// measured.
struct GroupGrowth {
    /// How many records or items the group holds.
    private(set) var size = 0
    /// Time spent filling so far, over every `grow` call.
    private var spent = Duration.zero
    /// The most time filling may take, over every `grow` call.
    let budgetSeconds: Double

    /// A group filled for at most `budgetSeconds` in total, over every `grow` call.
    init(budgetSeconds: Double) {
        self.budgetSeconds = budgetSeconds
    }

    /// Adds entries with `add(index)` until the group holds `target` or the budget is spent;
    /// returns the size reached.
    mutating func grow(to target: Int, _ add: (Int) throws -> Void) rethrows -> Int {
        let clock = ContinuousClock()
        let deadline = clock.now + (.seconds(budgetSeconds) - spent)
        let start = clock.now
        defer { spent += clock.now - start }
        // The clock is read every 16 additions: cheap next to an addition, close enough to the budget.
        while size < target, size % 16 != 0 || clock.now < deadline {
            try add(size)
            size += 1
        }
        return size
    }

    /// The note a stage gets when its target size was not reached.
    func shortfall(target: Int, reached: Int, unit: String) -> String? {
        guard reached < target else { return nil }
        return "Target size \(count(target)) \(unit) not reached: filling the group through the public API "
            + "stopped at \(count(reached)) \(unit) when the \(Int(budgetSeconds)) s population budget ran out "
            + "(each addition costs more as the group grows). The figures below are at \(count(reached)) \(unit)."
    }
}

/// A target stated at a size the run may not have reached (10,000 items, say). Measured at a
/// smaller size, a ratio already over the limit is reported as missed, on the assumption (true
/// of any storage whose per-operation cost does not fall as a group grows) that it would not
/// improve at the larger size; a ratio within the limit is reported as not measured.
func sizedCheck(
    _ figure: String, ratio: Double, limit: Double, reached: Int, required: Int, unit: String,
    measured: String, target: String
) -> TargetCheck {
    if reached >= required || ratio > limit {
        let label = reached >= required ? figure : "\(figure) (at \(count(reached)) \(unit), the largest reached)"
        return .ratio(label, ratio: ratio, limit: limit, measured: measured, target: target)
    }
    return TargetCheck(
        figure: figure, measured: measured, target: target,
        verdict: .notMeasured(reason: "within the limit at \(count(reached)) \(unit), the largest group reached; \(count(required)) not reached"))
}

/// One operation of a growth figure (``measureGrowthInBlocks(_:title:what:size:baseSize:unit:notes:schedule:)``):
/// the same call on the large group and on the small one, and the growth targets it is held to.
struct GrowthOperation {
    /// How the report names it, without the group: "warm `Vault.read`".
    let name: String
    /// Which way of making the call: "value kept (the default)".
    let variant: String
    /// The "≤ limit× growth" targets its growth is checked against.
    let limits: [Double]
    /// The call on the large group.
    let large: () throws -> Void
    /// The same call on the small group.
    let small: () throws -> Void
}

/// An operation's growth from the small group to the large one, both medians from the same
/// stretch of time (alternating blocks).
struct BlockGrowth {
    /// The operation's name, variant and targets.
    let name: String
    let variant: String
    let limits: [Double]
    /// Entries in the large group, and the operation's median there, in microseconds.
    let size: Int
    let median: Double
    /// Entries in the small group, and the median there.
    let baseSize: Int
    let baseMedian: Double
    /// What an entry is: "records", "items".
    let unit: String

    /// The large group's median over the small group's.
    var ratio: Double { median / baseMedian }

    /// One target row per limit: growth from the small group to `required` entries, measured at
    /// the size reached; `qualifier` follows the variant in the row's name (an item shape, say).
    func checks(required: Int, qualifier: String? = nil) -> [TargetCheck] {
        limits.map { limit in
            growthCheck(
                name, from: baseSize, reached: size, required: required, unit: unit,
                qualifier: ([variant] + [qualifier].compactMap { $0 }).joined(separator: ", "), ratio: ratio, limit: limit,
                measured: "\(microseconds(median)) µs at \(count(size)) \(unit) against \(microseconds(baseMedian)) µs at "
                    + "\(count(baseSize)), in alternating blocks = \(times(ratio))")
        }
    }
}

/// Calls per block of a growth figure.
let growthBlockCalls = 50

/// Measures each operation in a group of `size` entries and in a group of `baseSize` of the same
/// kind kept for the whole run, in alternating blocks of ``growthBlockCalls`` calls (a round is
/// one block of each side of each operation, in rotating order), each block's median one
/// measurement. A growth target is then the ratio of two medians of the same minutes, not of two
/// runs minutes apart, which differed by up to 1.7 times with nothing changed. Blocks rather than
/// single calls: alternating single calls put the two homes' state in the caches in turn, and the
/// small group's lookup measured 24.0 to 28.0 µs against 21.7 to 22.6 µs for the large one's in
/// the same rounds (two runs). `what` says what the operations are; the section's note adds how
/// they were measured.
func measureGrowthInBlocks(
    _ operations: [GrowthOperation], title: String, what: String, size: Int, baseSize: Int, unit: String,
    notes: [String], schedule: Schedule
) throws -> (section: Section, growths: [BlockGrowth]) {
    func block(_ call: @escaping () throws -> Void) -> () throws -> Measurement {
        {
            var times: [Double] = []
            for _ in 0..<growthBlockCalls { times.append(try Measurement.timing(call).microseconds) }
            return Measurement(microseconds: Samples(times).median)
        }
    }
    func label(_ operation: GrowthOperation, _ entries: Int) -> String {
        "\(operation.name), \(operation.variant), group of \(count(entries)) \(unit): median of a block of \(growthBlockCalls) calls"
    }
    // Both sides are GroupVault's: the small group's is a growth target's denominator, which a
    // reference never is.
    let results = try interleave(operations.flatMap { operation in [
        Contender(label: label(operation, size), role: .groupVault, run: block(operation.large)),
        Contender(label: label(operation, baseSize), role: .groupVault, run: block(operation.small)),
    ] }, schedule)
    let growths = operations.map { operation in
        BlockGrowth(
            name: operation.name, variant: operation.variant, limits: operation.limits,
            size: size, median: result(label(operation, size), in: results).median,
            baseSize: baseSize, baseMedian: result(label(operation, baseSize), in: results).median, unit: unit)
    }
    let section = Section(
        title: title,
        notes: notes + [
            what + " Each is measured in this group and in a group of \(count(baseSize)) \(unit) kept for the whole run, in "
                + "alternating blocks of \(growthBlockCalls) calls (each block's median one measurement), so both sides share "
                + "the same minutes of the machine. A growth target is the ratio of the two medians.",
        ],
        table: timeTable(results))
    return (section, growths)
}

/// The target "≤ `limit`× growth" of `name` from `base` entries to `required`, measured at
/// `reached` (``sizedCheck(_:ratio:limit:reached:required:unit:measured:target:)``).
func growthCheck(
    _ name: String, from base: Int, reached: Int, required: Int, unit: String, qualifier: String?,
    ratio: Double, limit: Double, measured: String
) -> TargetCheck {
    sizedCheck(
        "\(name) growth, \(count(base)) → \(count(required)) \(unit)" + (qualifier.map { ", \($0)" } ?? ""),
        ratio: ratio, limit: limit, reached: reached, required: required, unit: unit,
        measured: measured, target: "≤ \(String(format: "%g", limit))× growth")
}
