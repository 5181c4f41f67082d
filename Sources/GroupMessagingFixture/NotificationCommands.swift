import FixtureSupport
import Foundation
import GroupMessaging

/// Notification commands:
///
/// - `notify-observe --group G --name N [--count K]`: observes N, prints `ready` once the watch
///   is in place, then `woken` per wake-up; exits 0 after K wake-ups (default 1).
/// - `notify-post --group G --name N [--count K] [--uid U --gid G2]`: posts N K times (default 1),
///   prints `posted`; with `--uid`, as that user (see `becomeUser`).
let notificationCommands: [String: FixtureCommand] = [
    "notify-observe": { arguments in
        await runFixture(arguments) { options in
            let center = try GroupNotificationCenter(keyring: try options.keyring(), group: try options.group())
            let wanted = try options.integer("count", default: 1)
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
