/// When a running session next verifies the server (``SyncConfiguration/verificationInterval``).
///
/// Kept by the session rather than by a connection: a session whose connection fails and is
/// made again keeps its date, so that reconnects, which a fleet makes together when its server
/// restarts, never add verifications, each of which reads the whole store. A date that passed
/// while the session had no connection falls due as it connects again.
struct VerificationSchedule: Sendable {
    /// The configured interval.
    let interval: Duration
    /// When the next verification is due.
    private(set) var due: ContinuousClock.Instant

    /// The schedule of a session starting at `start` with `interval` configured, or `nil` when it
    /// verifies never: no interval, or one of zero or less, which would verify back to back.
    static func of(interval: Duration?, from start: ContinuousClock.Instant) -> VerificationSchedule? {
        guard let interval, interval > .zero else { return nil }
        return VerificationSchedule(interval: interval, from: start)
    }

    /// The schedule of a session starting at `start`: the first verification after one wait.
    init(interval: Duration, from start: ContinuousClock.Instant) {
        var generator = SystemRandomNumberGenerator()
        self.init(interval: interval, from: start, using: &generator)
    }

    init(interval: Duration, from start: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator) {
        self.interval = interval
        due = start + Self.wait(within: interval, using: &generator)
    }

    /// Moves the date one wait past `start`, the start of the verification now due.
    mutating func verificationStarted(at start: ContinuousClock.Instant) {
        var generator = SystemRandomNumberGenerator()
        verificationStarted(at: start, using: &generator)
    }

    mutating func verificationStarted(at start: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator) {
        due = start + Self.wait(within: interval, using: &generator)
    }

    /// A wait between half `interval` and the whole of it: at least one verification per
    /// interval, and machines that started together drift apart rather than reading the store
    /// at the same moment.
    static func wait(within interval: Duration, using generator: inout some RandomNumberGenerator) -> Duration {
        interval * Double.random(in: 0.5...1.0, using: &generator)
    }
}
