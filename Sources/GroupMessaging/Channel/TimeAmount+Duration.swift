import NIOCore

extension TimeAmount {
    /// `duration` as NIO's nanosecond count, clamped: below zero is zero, and anything past
    /// `Int64.max` nanoseconds (about 292 years) is that. A caller who writes
    /// `.seconds(Int64.max)` for "practically never" gets that, not an overflow trap.
    init(clamping duration: Duration) {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 || (seconds == 0 && attoseconds < 0) {
            self = .zero
            return
        }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        self = overflow || overflowAgain ? .nanoseconds(Int64.max) : .nanoseconds(total)
    }
}
