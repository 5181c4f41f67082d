import FixtureSupport
import Foundation
import Keyring

/// Item commands for multi-process tests. Each builds its identity from its arguments
/// (`--team`, `--group`) and takes its home from `GROUPVAULT_HOME`.
///
/// - `add-items --team T --group G --prefix P --count N [--service S]`: adds N generic
///   passwords with accounts `P-0` ... `P-(N-1)` and secrets equal to their account.
/// - `set-secret --team T --group G --service S --account A --value V --repeat R --times N`:
///   N times, sets the item's secret to V repeated R times (one whole value per update).
/// - `move-items --team T --group G --target G2 --service S`: moves the items of service S
///   from G to G2 (the identity has both groups); with `GROUPVAULT_FAULT` it can be killed
///   at any storage step of the move.
let itemCommands: [String: FixtureCommand] = [
    "add-items": { arguments in runItemCommand(arguments, addItems) },
    "set-secret": { arguments in runItemCommand(arguments, setSecret) },
    "move-items": { arguments in runItemCommand(arguments, moveItems) },
]

extension FixtureOptions {
    /// The group named by option `name`.
    fileprivate func group(_ name: String) throws(UsageError) -> GroupIdentifier {
        guard let group = GroupIdentifier(rawValue: try string(name)) else { throw UsageError(message: "--\(name) is not a valid group identifier") }
        return group
    }

    /// The identity of a fixture app: its team and the keychain access groups it shares
    /// (`--group`, and `--target` when given).
    fileprivate func itemKeyring() throws -> (Keyring, GroupIdentifier) {
        let group = try group("group")
        let groups = optionalString("target") == nil ? [group] : [group, try self.group("target")]
        let identity = Identity(teamID: try string("team"), bundleID: "com.example.fixture", keychainAccessGroups: groups)
        return (Keyring(identity: identity, home: try KeyringHome.fromEnvironment()), group)
    }
}

/// Exit statuses: 0 success, 1 a keyring error (printed), 64 bad arguments.
private func runItemCommand(_ arguments: [String], _ body: (FixtureOptions) throws -> Void) -> Int32 {
    runFixture(arguments) { options in
        try body(options)
        return 0
    }
}

private func addItems(_ options: FixtureOptions) throws {
    let (keyring, group) = try options.itemKeyring()
    let prefix = try options.string("prefix")
    let service = options.optionalString("service") ?? "fixture"
    for index in 0..<(try options.integer("count")) {
        let account = "\(prefix)-\(index)"
        try keyring.add(KeychainItem(service: service, account: account, accessGroup: group, secret: Data(account.utf8)))
    }
}

private func setSecret(_ options: FixtureOptions) throws {
    let (keyring, group) = try options.itemKeyring()
    let query = ItemQuery(service: try options.string("service"), account: try options.string("account"), accessGroup: group)
    var changes = ItemChanges()
    changes.secret = Data(String(repeating: try options.string("value"), count: try options.integer("repeat")).utf8)
    for _ in 0..<(try options.integer("times")) {
        try keyring.update(matching: query, with: changes)
    }
}

private func moveItems(_ options: FixtureOptions) throws {
    let (keyring, group) = try options.itemKeyring()
    var changes = ItemChanges()
    changes.accessGroup = try options.group("target")
    try keyring.update(matching: ItemQuery(service: try options.string("service"), accessGroup: group), with: changes)
}
