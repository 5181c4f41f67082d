import FixtureSupport
import Foundation
import GroupSync
import Keyring

// One "machine" of GroupSync's multi-machine tests: a process with its own keyring home (as a
// separate computer would have), apart from the other fixtures so that they never link
// postgres-nio. The test imports the group's key #1 into the home first.
// Usage: GroupSyncFixture <write|sync|dump> --home DIR --url URL [--group G] [--option value]...
//   (G: the application group whose store is used, group.com.example.sync by default)
//   write --machine M --count N --keys K [--prefix P] [--offline yes]
//                                          sets key "<P><i mod K>" (P: k) to "M:<i>" for i < N while
//                                          syncing, printing "set <key> <value>" once each
//                                          set has returned (is durable); then pushes everything;
//                                          offline: only sets, neither syncing nor pushing
//   sync                                   pushes and pulls until nothing is pending
//   dump                                   sync, then prints "value <key> <value>" lines and
//                                          "status <json>"
// Usage errors exit 64, failures 1.
let storeIdentifier = GroupIdentifier(rawValue: "ABCDE12345.com.example.sync")!

func openStore(_ options: FixtureOptions) throws -> UbiquitousKeyValueStore {
    let name = try options.string("group", default: "group.com.example.sync")
    guard let group = GroupIdentifier(rawValue: name) else { throw UsageError(message: "--group \(name) is no application group") }
    let keyring = Keyring(
        identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.sync", applicationGroups: [group]),
        home: KeyringHome(root: URL(fileURLWithPath: try options.string("home"))))
    let configuration = SyncConfiguration(url: try SyncServerURL(try options.string("url")))
    return try UbiquitousKeyValueStore(
        group: group, keyring: keyring,
        entitlement: .some(UbiquityKeyValueStoreEntitlement(identifier: storeIdentifier)),
        configuration: .some(configuration))
}

/// Exchanges with the server until no write is pending (each pass is one round trip; a pass
/// that leaves writes pending lost a race with another machine and goes again).
func pushEverything(_ store: UbiquitousKeyValueStore) async throws {
    var failures = 0
    while true {
        var unreachable = false
        do {
            try await store.synchronizeWithServer()
            failures = 0
        } catch {
            guard error.code == .server, failures < 200 else { throw error }
            unreachable = true
        }
        if unreachable {
            // The server is restarting (a test stops it mid run): try again after a moment.
            failures += 1
            try await Task.sleep(for: .milliseconds(100))
            continue
        }
        if store.status.pendingWrites == 0 { return }
    }
}

func statusLine(_ store: UbiquitousKeyValueStore) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.dateEncodingStrategy = .millisecondsSince1970
    return "status " + String(decoding: try encoder.encode(store.status), as: UTF8.self)
}

let commandLine = Array(CommandLine.arguments.dropFirst())
guard let command = commandLine.first, ["write", "sync", "dump"].contains(command) else {
    printError("usage: GroupSyncFixture <write|sync|dump> --home DIR --url URL ...")
    exit(64)
}
exit(await runFixture(Array(commandLine.dropFirst())) { options in
    let store = try openStore(options)
    switch command {
    case "write":
        let machine = try options.string("machine")
        let count = try options.integer("count")
        let keys = try options.integer("keys")
        let prefix = try options.string("prefix", default: "k")
        let offline = try options.string("offline", default: "no") == "yes"
        if !offline { store.start() }
        for index in 0..<count {
            let key = "\(prefix)\(index % keys)"
            let value = "\(machine):\(index)"
            try store.setValue(.string(value), forKey: key)
            printLine("set \(key) \(value)")
        }
        guard !offline else { break }
        await store.stop()
        try await pushEverything(store)
        printLine(try statusLine(store))
    case "sync":
        try await pushEverything(store)
        printLine(try statusLine(store))
    default:
        try await pushEverything(store)
        for (key, value) in store.dictionaryRepresentation.sorted(by: { $0.key < $1.key }) {
            if case .string(let text) = value { printLine("value \(key) \(text)") }
        }
        printLine(try statusLine(store))
    }
    return 0
})
