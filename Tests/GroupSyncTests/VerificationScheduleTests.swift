@testable import GroupSync
import GroupVaultTestKit
import XCTest

/// When a running session verifies the server (`VerificationSchedule`): at least once per
/// interval, each wait drawn between half the interval and the whole of it, so that machines
/// started together spread their reads of the store.
final class VerificationScheduleTests: XCTestCase {
    private let interval = Duration.seconds(3_600)
    private let start = ContinuousClock.now

    func testTheFirstVerificationFallsDueBetweenHalfAnIntervalAndOneAfterTheStart() {
        var generator = SeededGenerator()
        for _ in 0..<1_000 {
            let schedule = VerificationSchedule(interval: interval, from: start, using: &generator)

            XCTAssertGreaterThanOrEqual(schedule.due, start + interval / 2, generator.describe)
            XCTAssertLessThanOrEqual(schedule.due, start + interval, generator.describe)
        }
    }

    func testEachNextVerificationFallsDueWithinAnIntervalOfTheOneThatStarted() {
        var generator = SeededGenerator()
        var schedule = VerificationSchedule(interval: interval, from: start, using: &generator)
        var started = start
        for _ in 0..<1_000 {
            started = schedule.due
            schedule.verificationStarted(at: started, using: &generator)

            XCTAssertGreaterThanOrEqual(schedule.due, started + interval / 2, generator.describe)
            XCTAssertLessThanOrEqual(schedule.due, started + interval, generator.describe)
        }
    }

    func testASessionWithoutAPositiveIntervalHasNoSchedule() {
        XCTAssertNil(VerificationSchedule.of(interval: nil, from: start))
        XCTAssertNil(VerificationSchedule.of(interval: .zero, from: start), "zero would verify back to back")
        XCTAssertNil(VerificationSchedule.of(interval: .seconds(-1), from: start))
        XCTAssertEqual(VerificationSchedule.of(interval: .nanoseconds(1), from: start)?.interval, .nanoseconds(1))
    }

    func testSessionsStartedTogetherFallDueAtDifferentTimes() {
        var generator = SeededGenerator()
        let dates = Set((0..<100).map { _ in VerificationSchedule(interval: interval, from: start, using: &generator).due })

        XCTAssertGreaterThan(dates.count, 90, "100 sessions started at once: \(dates.count) dates; \(generator.describe)")
    }
}
