import BenchModel
import Foundation
import GroupMessaging

// The far end of the notification figure, a process of its own as an observing widget is:
//
//   NotificationEcho HOME    posts "ready" once observing, then answers every "ping" with a
//                            "pong" and every "handler-ping" with a "handler-pong" until its
//                            standard input closes or it is killed
//
// "ping" is observed as most applications observe, through the async sequence; "handler-ping"
// through a handler, which posts its answer from the notification reader thread itself;
// "wait-ping" by a thread of this process's own blocked in a waiter's `wait()`, which answers
// with "wait-pong". A
// ping-pong never coalesces (each side waits for the other's post), so half a round trip is
// one post-to-wake across processes.

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: NotificationEcho HOME\n".utf8))
    exit(2)
}
do {
    let keyring = BenchHome.keyring(root: URL(fileURLWithPath: CommandLine.arguments[1]))
    let center = try GroupNotificationCenter(keyring: keyring, group: BenchHome.group)
    let pings = try center.notifications(named: "ping")
    let handlerPings = try center.observe("handler-ping") { _ in
        do {
            try center.post("handler-pong")
        } catch {
            FileHandle.standardError.write(Data("NotificationEcho: \(error)\n".utf8))
            exit(1)
        }
    }
    let waitPings = try center.waiter(named: "wait-ping")
    Thread.detachNewThread {
        do {
            while try waitPings.wait() != nil { try center.post("wait-pong") }
        } catch {
            FileHandle.standardError.write(Data("NotificationEcho: \(error)\n".utf8))
            exit(1)
        }
    }
    // The parent dies without killing us (a crash, say): end with its pipe rather than linger.
    Thread.detachNewThread {
        _ = FileHandle.standardInput.readDataToEndOfFile()
        exit(0)
    }
    try center.post("ready")
    for await _ in pings { try center.post("pong") }
    handlerPings.cancel()
} catch {
    FileHandle.standardError.write(Data("NotificationEcho: \(error)\n".utf8))
    exit(1)
}
