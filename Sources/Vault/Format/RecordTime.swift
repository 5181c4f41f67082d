#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Times a caller hands to a write, checked before anything formats them.
///
/// Why a separate step: `Date`'s own `description` traps on a NaN time interval, and the error
/// message for a refused expiry used to interpolate the date, so `expiresAt: Date(timeIntervalSince1970: .nan)`
/// killed the writer while it was building the refusal. Messages here show the raw number of
/// seconds, whose `Double` description is defined for every value (`nan`, `inf`).
enum RecordTime {
    /// `date` in header milliseconds, or ``VaultError/Code/invalidArgument`` when it is not
    /// finite or lies beyond ``BlobFormat/maximumTimeMagnitude``.
    /// - Parameters:
    ///   - role: what the date is, for the message ("expiry").
    ///   - subject: the record, as ``Vault/subject(_:)`` names it.
    static func milliseconds(_ date: Date, role: String, of subject: String) throws(VaultError) -> Int64 {
        guard let milliseconds = BlobFormat.milliseconds(date) else {
            throw VaultError(.invalidArgument, "refusing to write \(subject): \(role) \(printable(date)) cannot be represented (finite, within ±275,760 years of 1970)")
        }
        return milliseconds
    }

    /// `date` for a message, for any value: ISO 8601 for years 1 to 9999, where that format is
    /// exact, and otherwise the seconds since 1970 as a number.
    static func printable(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        // 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
        guard seconds.isFinite, seconds >= -62_135_596_800, seconds <= 253_402_300_799 else {
            return "\(seconds) s since 1970"
        }
        return date.formatted(.iso8601)
    }
}
