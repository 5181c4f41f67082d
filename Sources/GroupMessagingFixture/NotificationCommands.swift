import FixtureSupport
import Foundation
import GroupMessaging
import Synchronization

/// Notification commands:
///
/// - `notify-observe --group G --name N [--count K] [--with stream|handler|wait]`: observes N
///   with `notifications(named:)` (the default), with `observe(_:handler:)` or with a
///   `waiter(named:)` whose `wait()` blocks the fixture, prints `ready` once the watch is in place,
///   then `woken` per wake-up (from the handler itself, on the reader thread, with `handler`);
///   exits 0 after K wake-ups (default 1).
/// - `notify-post --group G --name N [--count K] [--uid U --gid G2]`: posts N K times (default 1),
///   prints `posted`; with `--uid`, as that user (see `becomeUser`).
let notificationCommands: [String: FixtureCommand] = [
    "notify-observe": { arguments in
        await runFixture(arguments) { options in
            let center = try GroupNotificationCenter(keyring: try options.keyring(), group: try options.group())
            let wanted = try options.integer("count", default: 1)
            let mode = try options.string("with", default: "stream")
            if mode == "wait" {
                let waiter = try center.waiter(named: try options.string("name"))
                printLine("ready")
                for _ in 0..<wanted {
                    guard try waiter.wait() != nil else { return 1 }
                    printLine("woken")
                }
                return 0
            }
            if mode == "handler" {
                let (enough, reached) = AsyncStream.makeStream(of: Never.self)
                let seen = Mutex(0)
                let observation = try center.observe(try options.string("name")) { _ in
                    printLine("woken")
                    if seen.withLock({ seen in seen += 1; return seen }) >= wanted { reached.finish() }
                }
                printLine("ready")
                for await _ in enough {}
                observation.cancel()
                return 0
            }
            let notifications = try center.notifications(named: try options.string("name"))
            printLine("ready")
            var seen = 0
            for await _ in notifications {
                seen += 1
                printLine("woken")
                if seen >= wanted { return 0 }
            }
            printError("the notification stream ended after \(seen) wake-ups")
            return 1
        }
    },
    "notify-post": { arguments in
        runFixture(arguments) { options in
            try becomeUser(options)
            let center = try GroupNotificationCenter(keyring: try options.keyring(), group: try options.group())
            for _ in 0..<(try options.integer("count", default: 1)) {
                try center.post(try options.string("name"))
            }
            printLine("posted")
            return 0
        }
    },
]
