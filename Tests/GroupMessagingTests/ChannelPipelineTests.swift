@testable import GroupMessaging
import NIOCore
import NIOEmbedded
import SealedStorage
import XCTest

/// A client's and a server's whole pipelines, as the client and server install them, joined
/// byte for byte without a socket.
final class ChannelPipelineTests: XCTestCase {
    private let clientDelegate = RecordingConnectionDelegate()
    private let serverDelegate = RecordingConnectionDelegate(groupKey: HandPlayedPeer.groupKey)
    private var client: EmbeddedChannel!
    private var server: EmbeddedChannel!

    override func setUpWithError() throws {
        try super.setUpWithError()
        client = EmbeddedChannel()
        try client.pipeline.syncOperations.addChannelClientHandlers(
            key: HandPlayedPeer.groupKey, keyID: HandPlayedPeer.keyID, group: HandPlayedPeer.group, delegate: clientDelegate)
        server = EmbeddedChannel()
        try server.pipeline.syncOperations.addChannelServerHandlers(
            connectionID: 11, group: HandPlayedPeer.group, handshakeTimeout: .seconds(10), delegate: serverDelegate)
        try server.activate()
        try client.activate()
    }

    /// Moves every byte written by either end to the other until neither writes more.
    private func exchange() throws {
        var moved = true
        while moved {
            moved = false
            while let bytes = try client.readOutbound(as: ByteBuffer.self) { try server.writeInbound(bytes); moved = true }
            while let bytes = try server.readOutbound(as: ByteBuffer.self) { try client.writeInbound(bytes); moved = true }
        }
    }

    func testBothEndsEstablishTheConnectionUnderTheServersID() throws {
        try exchange()
        XCTAssertEqual(clientDelegate.established, [11])
        XCTAssertEqual(serverDelegate.established, [11])
    }

    func testEnvelopesCrossBothWaysOnceEstablished() throws {
        try exchange()
        let request = ChannelEnvelope(kind: .request, id: 1, type: "ask", body: Array("{\"q\":1}".utf8))
        let response = ChannelEnvelope(kind: .response, id: 1, type: "answer", body: Array("{\"a\":2}".utf8))
        try client.writeAndFlush(request).wait()
        try exchange()
        try server.writeAndFlush(response).wait()
        try exchange()
        XCTAssertEqual(serverDelegate.received, [request])
        XCTAssertEqual(clientDelegate.received, [response])
    }

    func testServerWithoutTheClientsKeyEndsTheConnectionAtTheHello() throws {
        let server = EmbeddedChannel()
        let delegate = RecordingConnectionDelegate(groupKey: nil)
        try server.pipeline.syncOperations.addChannelServerHandlers(
            connectionID: 12, group: HandPlayedPeer.group, handshakeTimeout: .seconds(10), delegate: delegate)
        try server.activate()
        while let bytes = try client.readOutbound(as: ByteBuffer.self) { try server.writeInbound(bytes) }
        XCTAssertFalse(server.isActive)
        XCTAssertEqual(delegate.established, [])
        XCTAssertTrue(delegate.ended.first?.reason.hasPrefix("badHandshake:") == true)
    }

    func testClientWithAnotherKeyUnderTheSameIDIsRefusedAtItsReady() throws {
        let intruder = EmbeddedChannel()
        let intruderDelegate = RecordingConnectionDelegate()
        try intruder.pipeline.syncOperations.addChannelClientHandlers(
            key: SymmetricKey(), keyID: HandPlayedPeer.keyID, group: HandPlayedPeer.group, delegate: intruderDelegate)
        client = intruder
        try intruder.activate()
        try exchange()
        XCTAssertEqual(serverDelegate.established, [])
        XCTAssertEqual(intruderDelegate.established, [])
        XCTAssertTrue(serverDelegate.ended.first?.reason.hasPrefix("authenticationFailed:") == true, "\(serverDelegate.ended)")
    }
}
