/// What ``Vault/verifyAll(progress:)`` found: how many records passed every check a reader of any
/// type runs, and each one that did not, with its reason.
public struct VerificationReport: Sendable, Equatable {
    /// One record that did not pass.
    public struct Finding: Sendable, Equatable, CustomStringConvertible {
        /// The record name, as found on disk or in the trust ledger (escape it before printing).
        public var name: String
        /// Why it did not pass (`rollback`, `authenticationFailed`, `notFound` for a record the
        /// ledger knows whose file is gone, ...).
        public var error: VaultError

        /// Creates a finding.
        public init(name: String, error: VaultError) {
            self.name = name
            self.error = error
        }

        /// `name: code: reason`.
        public var description: String { "\(name): \(error)" }
    }

    /// Records that passed (tombstones included: a deleted record is in order).
    public var passed: Int
    /// Records that did not, in name order.
    public var findings: [Finding]

    /// Creates a report.
    public init(passed: Int, findings: [Finding]) {
        self.passed = passed
        self.findings = findings
    }

    /// Whether every record passed and the ledger knows no record whose file is gone.
    public var isClean: Bool { findings.isEmpty }
}
