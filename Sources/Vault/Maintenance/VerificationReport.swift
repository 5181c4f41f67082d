/// What ``Vault/verifyAll(progress:)`` found: a result for every record, in name order, and
/// from them how many passed every check a reader of any type runs and which did not.
///
/// ```swift
/// let report = try vault.verifyAll()
/// for record in report.records where record.outcome == .missing { restore(record.name) }
/// ```
public struct VerificationReport: Sendable, Equatable {
    /// What verification concluded about one record. A struct with static members, so an
    /// outcome added later does not break anyone's `switch`.
    public struct Outcome: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The outcome's stable name, e.g. `authentic`.
        public let rawValue: String
        /// An outcome by its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The outcome's name.
        public var description: String { rawValue }

        /// The record is authentic and as fresh as the trust ledger requires: it passed.
        public static let authentic = Outcome(rawValue: "authentic")
        /// The record is an authentic tombstone: it was deleted, which is in order, so it passed.
        public static let deleted = Outcome(rawValue: "deleted")
        /// The record did not pass (``Record/error`` says why: tampering, rollback, an unknown
        /// key, a file that cannot be inspected, ...).
        public static let refused = Outcome(rawValue: "refused")
        /// The trust ledger knows the record but its file is gone: it was removed outside
        /// GroupVault (``Record/error`` says so, with the sequence the ledger confirmed).
        public static let missing = Outcome(rawValue: "missing")

        /// Whether a record with this outcome passed.
        public var passed: Bool { self == .authentic || self == .deleted }
    }

    /// One record's result.
    public struct Record: Sendable, Equatable, CustomStringConvertible {
        /// The record name, as found on disk or in the trust ledger (escape it before printing).
        public var name: String
        /// What verification concluded.
        public var outcome: Outcome
        /// The size of the opened payload, for an ``Outcome/authentic`` record.
        public var payloadBytes: Int?
        /// Why it did not pass, for an outcome that did not.
        public var error: VaultError?

        /// Creates a result.
        public init(name: String, outcome: Outcome, payloadBytes: Int? = nil, error: VaultError? = nil) {
            self.name = name
            self.outcome = outcome
            self.payloadBytes = payloadBytes
            self.error = error
        }

        /// `name: authentic`, or `name: code: reason` for one that did not pass.
        public var description: String { "\(name): \(error.map(String.init(describing:)) ?? outcome.rawValue)" }
    }

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

    /// Every record verified, in name order: the files of the records directory, and the
    /// records the trust ledger knows whose file is gone.
    public var records: [Record]

    /// Creates a report.
    public init(records: [Record]) {
        self.records = records
    }

    /// Records that passed (tombstones included: a deleted record is in order).
    public var passed: Int { records.count(where: \.outcome.passed) }

    /// Records that did not, in name order.
    public var findings: [Finding] {
        records.compactMap { record in
            guard !record.outcome.passed, let error = record.error else { return nil }
            return Finding(name: record.name, error: error)
        }
    }

    /// Whether every record passed and the ledger knows no record whose file is gone.
    public var isClean: Bool { records.allSatisfy(\.outcome.passed) }
}
