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
