/// One GroupVault operation beside its baselines, all measured in the same run.
struct Comparison: Sendable {
    /// Plain file I/O doing the same job without GroupVault's guarantees.
    struct Baseline: Sendable {
        /// What the baseline does, in one line.
        let description: String
        /// Its timings.
        let samples: Samples
    }

    /// The GroupVault call measured, as the report names it.
    let operation: String
    /// Its timings.
    let measured: Samples
    /// What it is compared with; at least one.
    let baselines: [Baseline]

    /// How many times slower than `baseline` the operation is, median against median.
    func ratio(to baseline: Baseline) -> Double {
        measured.median.microseconds / baseline.samples.median.microseconds
    }
}
