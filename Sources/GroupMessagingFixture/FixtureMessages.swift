import FixtureSupport
import GroupMessaging

/// A client's numbered message to the server, padded to a chosen size.
struct FixtureNote: GroupMessage {
    static let messageType = "fixture.note"
    var sender: String
    var seq: Int
    var padding: String
}

/// Acknowledges a note sent as a request.
struct FixtureAck: GroupMessage {
    static let messageType = "fixture.ack"
    var seq: Int
}

/// Asks the server how many notes of `sender` it has received (in order behind the notes).
struct FixtureFlush: GroupMessage {
    static let messageType = "fixture.flush"
    var sender: String
}

/// The answer to ``FixtureFlush``.
struct FixtureFlushed: GroupMessage {
    static let messageType = "fixture.flushed"
    var received: Int
}

/// A server's message to clients, broadcast or targeted.
struct FixtureTick: GroupMessage {
    static let messageType = "fixture.tick"
    var targeted: Bool
    var seq: Int
    var padding: String
}

/// The types every fixture end accepts.
let fixtureTypes = GroupMessageTypes([FixtureNote.self, FixtureAck.self, FixtureFlush.self, FixtureFlushed.self, FixtureTick.self])
