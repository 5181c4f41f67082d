/// A figure whose time is dominated by device flushes (`fsync`, `fdatasync`): its contenders,
/// and how its results become the report's section and checks once every run is in.
///
/// A flush's cost depends on what else the device is writing back at that moment, which one
/// run of a few seconds samples badly: a burst of another process's writeback can move a
/// whole run. So such a figure is measured in several runs, other figures' runs apart, and the report
/// shows each run and compares the median of the run medians.
struct FlushBoundFigure {
    /// What progress messages call it.
    let name: String
    /// The contenders, interleaved in every run as any figure's are.
    let contenders: [Contender]
    /// Set-up done before each run and undone after it, for state that may not stay in place
    /// while the other figures run: a kernel keyring of the group's size, say, as the kernel's
    /// key quota holds one such keyring at a time. The set-up returns its undoing.
    var eachRun: () throws -> () -> Void = { {} }
    /// The figure's section and checks, from one result per contender holding every run.
    let report: ([ContenderResult]) throws -> Outcome
}

/// Measures `figures` in `runs` runs each: pass after pass over the list, one interleaved run
/// of every figure per pass, so a figure's runs are separated by the other figures' runs.
/// Each run follows `schedule` (its own warm-up, rounds and budget).
func measureFlushBound(_ figures: [FlushBoundFigure], runs: Int, _ schedule: Schedule) throws -> Outcome {
    var measured = figures.map { _ in [[ContenderResult]]() }
    for run in 1...max(runs, 1) {
        for (index, figure) in figures.enumerated() {
            progress("flush-bound, run \(run) of \(runs): \(figure.name)...")
            let tearDown = try figure.eachRun()
            defer { tearDown() }
            measured[index].append(try interleave(figure.contenders, schedule))
        }
    }
    var outcome = Outcome()
    for (figure, results) in zip(figures, measured) {
        outcome.append(try figure.report(figure.contenders.indices.map { contender in
            ContenderResult(contender: figure.contenders[contender], runs: results.map { $0[contender].runs[0] }, peaks: nil)
        }))
    }
    return outcome
}
