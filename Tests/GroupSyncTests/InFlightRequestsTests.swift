@testable import GroupSync
import NIOCore
import NIOPosix
import XCTest

/// The requests waiting on a connection fail as soon as it closes, whether or not the driver
/// ever answers them; answered requests are unaffected.
final class InFlightRequestsTests: XCTestCase {
    private var close: EventLoopPromise<Void>!
    private var requests: InFlightRequests!
    /// Releases the requests that stand for a driver that never answers, at the end of a test.
    private let (release, releasing) = AsyncStream<Void>.makeStream()

    override func setUp() {
        super.setUp()
        close = MultiThreadedEventLoopGroup.singleton.next().makePromise()
        requests = InFlightRequests(closingWith: close.futureResult)
    }

    override func tearDown() {
        close.succeed(())
        releasing.finish()
        super.tearDown()
    }

    /// A request the driver never answers (until the test ends).
    private func unanswered() -> @Sendable () async throws -> Int {
        let release = self.release
        return {
            for await _ in release {}
            return 0
        }
    }

    func testAnAnsweredRequestReturnsItsValue() async throws {
        let value = try await requests.run { 42 }

        XCTAssertEqual(value, 42)
    }

    func testARequestTheDriverNeverAnswersFailsWhenTheConnectionCloses() async throws {
        let requests = self.requests!
        let request = unanswered()
        let waiting = Task { try await requests.run(request) }

        close.succeed(())

        do {
            _ = try await waiting.value
            XCTFail("the request returned")
        } catch {
            XCTAssertTrue(error is InFlightRequests.ConnectionClosed, "\(error)")
        }
    }

    func testARequestMadeAfterTheCloseFailsAtOnce() async throws {
        close.succeed(())
        try await close.futureResult.get()

        do {
            _ = try await requests.run(unanswered())
            XCTFail("the request returned")
        } catch {
            XCTAssertTrue(error is InFlightRequests.ConnectionClosed, "\(error)")
        }
    }

    func testARequestThatFailsOnItsOwnKeepsItsError() async throws {
        struct DriverError: Error {}

        do {
            _ = try await requests.run { () async throws -> Int in throw DriverError() }
            XCTFail("the request returned")
        } catch {
            XCTAssertTrue(error is DriverError, "\(error)")
        }
    }
}
