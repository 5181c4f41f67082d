import Foundation
import GroupMessaging
import Keyring

struct Ping: GroupMessage { static let messageType = "com.example.ping" }
struct Pong: GroupMessage { static let messageType = "com.example.pong" }

let keyring = try Keyring.fromEnvironment()
let group = try GroupIdentifier(validating: "group.com.example.notes")

let center = try GroupNotificationCenter(keyring: keyring, group: group)
try center.post("com.example.signed-in")

let socket = try GroupIPCName(.socket, "sync", in: group, keyring: keyring)
let client = try GroupChannelClient(socket, keyring: keyring, accepting: GroupMessageTypes([Pong.self]))
client.start()
let pong = try await client.request(Ping(), timeout: .seconds(2))
print(pong is Pong)
