import Foundation
import GroupMessaging
import Keyring

// The request and answer that `vaultcli channel serve` speaks (docs/CLI.md).
struct Ping: GroupMessage { static let messageType = "groupvault.vaultcli.ping"; var seq: Int }
struct Pong: GroupMessage { static let messageType = "groupvault.vaultcli.pong"; var seq: Int; var peerPID: Int32 }

let keyring = try Keyring.fromEnvironment()
let group = try GroupIdentifier(validating: "group.com.example.notes")

let center = try GroupNotificationCenter(keyring: keyring, group: group)
try center.post("com.example.signed-in")

let socket = try GroupIPCName(.socket, "sync", in: group, keyring: keyring)
let client = try GroupChannelClient(socket, keyring: keyring, accepting: GroupMessageTypes([Pong.self]))
client.start()
let pong = try await client.request(Ping(seq: 1), timeout: .seconds(5))   // connecting included
print((pong as? Pong).map { "pong \($0.seq) from a server that saw pid \($0.peerPID)" } ?? "unexpected answer")
await client.close()
