import Foundation
import GroupVaultTestKit
// @testable for ItemTable: the whole store is compared after every step, including the items
// the current lock state hides from the public API.
@testable import Keyring
import XCTest

/// Model-based fuzzing: seeded random sequences of add / query / update / delete / lock-state
/// changes run against a real keyring and against a small in-memory model of Apple's rules,
/// and must agree on every result and on the whole store after every step.
///
/// Small alphabets (services differing only in case, absent vs empty, three groups, sync
/// flags, three accessibility classes) make collisions, duplicates and lock-state refusals
/// common. Replay a failure with the seed printed in its message.
///
/// 50 sequences of 40 steps (2,000 operations, each followed by a full comparison of the store)
/// keep the debug-build run near 20 s; set `GROUPVAULT_FUZZ_SEQUENCES` for a longer soak.
final class ItemModelFuzzTests: XCTestCase {
    private static let sequences = ProcessInfo.processInfo.environment["GROUPVAULT_FUZZ_SEQUENCES"].flatMap { Int($0) } ?? 50
    private static let stepsPerSequence = 40

    func testRandomOperationSequencesAgreeWithTheModel() throws {
        var rng = SeededGenerator()
        for sequence in 0..<Self.sequences {
            let root = try FuzzRoot()
            defer { root.remove() }
            var run = FuzzRun(keyring: Keyring(identity: ItemTestHome.identity, home: root.home))
            for step in 0..<Self.stepsPerSequence {
                let operation = FuzzOperation.random(using: &rng, model: run.model)
                let context = "sequence \(sequence) step \(step): \(operation); \(rng.describe)"
                let (actual, expected) = try run.perform(operation)
                XCTAssertEqual(actual, expected, context)
                let (stored, modelled) = try run.storedAndModelled()
                XCTAssertEqual(stored, modelled, "store differs from the model after \(context)")
                if actual != expected || stored != modelled { return }  // later steps would only repeat the divergence
            }
        }
    }
}

// MARK: - The model

/// The part of an item the model predicts (everything but the modification date, whose exact
/// value is the clock's).
private struct ModelItem: Equatable, CustomStringConvertible {
    var itemClass: ItemClass
    var group: GroupIdentifier
    var service: String?
    var account: String?
    var server: String?
    var isSynchronizable: Bool
    var accessibility: Accessibility
    var label: String?
    var secret: Data
    var reference: Data
    var created: Date

    init(_ item: KeychainItem) {
        itemClass = item.itemClass
        group = item.accessGroup!
        service = item.service
        account = item.account
        server = item.server
        isSynchronizable = item.isSynchronizable
        accessibility = item.accessibility
        label = item.label
        secret = item.secret
        reference = item.persistentReference ?? Data()
        created = item.creationDate ?? .distantPast
    }

    var description: String {
        "\(itemClass.rawValue)/\(group.rawValue)/svc:\(service ?? "nil")/acct:\(account ?? "nil")/srv:\(server ?? "nil")/sync:\(isSynchronizable)/\(accessibility.rawValue)/label:\(label ?? "nil")/\(secret.count)B"
    }

    /// Apple's primary key, with absent strings equal to empty ones.
    var key: [String] {
        let common = [itemClass.rawValue, group.rawValue, "\(isSynchronizable)", account ?? ""]
        return common + (itemClass == .genericPassword ? [service ?? ""] : [server ?? ""])
    }
}

/// What an operation produced: items (projected), a count, success without a value, or a
/// failure status.
private enum FuzzOutcome: Equatable {
    case items([ModelItem])
    case count(Int)
    case done
    case failure(KeyringStatus)
}

private struct QuerySpec: CustomStringConvertible {
    var itemClass: ItemClass = .genericPassword
    var group: GroupIdentifier?
    var service: String?
    var account: String?
    var server: String?
    var label: String?
    var synchronizable: ItemQuery.Synchronizable = .no
    var accessibility: Accessibility?
    var reference: Data?
    var caseInsensitive = false

    var query: ItemQuery {
        ItemQuery(itemClass, service: service, account: account, accessGroup: group, label: label, synchronizable: synchronizable,
                  accessibility: accessibility, server: server, persistentReference: reference, caseInsensitive: caseInsensitive)
    }

    /// The model's own reading of the matching rules, written independently of ItemMatching.
    func matches(_ item: ModelItem) -> Bool {
        func same(_ wanted: String?, _ stored: String?) -> Bool {
            guard let wanted else { return true }
            let stored = stored ?? ""
            return caseInsensitive ? wanted.lowercased() == stored.lowercased() : wanted == stored
        }
        let syncOK = synchronizable == .any || (synchronizable == .yes) == item.isSynchronizable
        return item.itemClass == itemClass && (group == nil || group == item.group) && syncOK
            && (accessibility == nil || accessibility == item.accessibility) && (reference == nil || reference == item.reference)
            && same(service, item.service) && same(account, item.account) && same(server, item.server) && same(label, item.label)
    }

    var description: String {
        var parts = [itemClass.rawValue]
        if let group { parts.append("group:\(group.rawValue)") }
        if let service { parts.append("svc:\"\(service)\"") }
        if let account { parts.append("acct:\"\(account)\"") }
        if let server { parts.append("srv:\"\(server)\"") }
        if let label { parts.append("label:\"\(label)\"") }
        if let accessibility { parts.append(accessibility.rawValue) }
        if reference != nil { parts.append("by-reference") }
        if caseInsensitive { parts.append("nocase") }
        parts.append("sync:\(synchronizable)")
        return "{" + parts.joined(separator: " ") + "}"
    }
}

private struct ChangeSpec: CustomStringConvertible {
    var service: String??
    var account: String??
    var label: String??
    var secret: Data?
    var isSynchronizable: Bool?
    var accessibility: Accessibility?
    var group: GroupIdentifier?

    var changes: ItemChanges {
        var changes = ItemChanges()
        changes.service = service
        changes.account = account
        changes.label = label
        changes.secret = secret
        changes.isSynchronizable = isSynchronizable
        changes.accessibility = accessibility
        changes.accessGroup = group
        return changes
    }

    var isEmpty: Bool {
        service == nil && account == nil && label == nil && secret == nil && isSynchronizable == nil && accessibility == nil && group == nil
    }

    func apply(to item: ModelItem) -> ModelItem {
        var item = item
        if let service { item.service = service }
        if let account { item.account = account }
        if let label { item.label = label }
        if let secret { item.secret = secret }
        if let isSynchronizable { item.isSynchronizable = isSynchronizable }
        if let accessibility { item.accessibility = accessibility }
        if let group { item.group = group }
        return item
    }

    var description: String {
        var parts: [String] = []
        if let service { parts.append("svc=\(service.map { "\"\($0)\"" } ?? "nil")") }
        if let account { parts.append("acct=\(account.map { "\"\($0)\"" } ?? "nil")") }
        if let label { parts.append("label=\(label.map { "\"\($0)\"" } ?? "nil")") }
        if let secret { parts.append("secret=\(secret.count)B") }
        if let isSynchronizable { parts.append("sync=\(isSynchronizable)") }
        if let accessibility { parts.append("pdmn=\(accessibility.rawValue)") }
        if let group { parts.append("group=\(group.rawValue)") }
        return "{" + parts.joined(separator: " ") + "}"
    }
}

private enum FuzzOperation: CustomStringConvertible {
    case add(KeychainItem)
    case query(QuerySpec, MatchLimit, includingSecrets: Bool)
    case update(QuerySpec, ChangeSpec)
    case delete(QuerySpec)
    case setLockState(DeviceLockState)

    static let foreignGroup = GroupIdentifier(rawValue: "group.com.foreign")!
    static let groups = ItemTestHome.identity.accessGroups
    static let services: [String?] = [nil, "", "s", "S"]
    static let accounts: [String?] = [nil, "a", "A"]
    static let servers: [String?] = [nil, "x.example", "X.example"]
    static let labels: [String?] = [nil, "l1", "l2"]
    static let classes: [Accessibility] = [.whenUnlocked, .afterFirstUnlock, .always]

    static func random(using rng: inout SeededGenerator, model: FuzzModel) -> FuzzOperation {
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<38: return .add(randomItem(using: &rng))
        case 38..<63:
            let limits: [MatchLimit] = [.one, .all, .count(2)]
            return .query(randomQuery(using: &rng, model: model), limits.randomElement(using: &rng)!, includingSecrets: Bool.random(using: &rng))
        case 63..<85: return .update(randomQuery(using: &rng, model: model), randomChanges(using: &rng))
        case 85..<95: return .delete(randomQuery(using: &rng, model: model))
        // Unlocked half the time, so most operations get past the lock-state check.
        default: return .setLockState([.unlocked, .unlocked, .unlocked, .locked, .locked, .beforeFirstUnlock].randomElement(using: &rng)!)
        }
    }

    private static func randomGroup(using rng: inout SeededGenerator, absentChance: Int) -> GroupIdentifier? {
        let roll = Int.random(in: 0..<100, using: &rng)
        if roll < absentChance { return nil }
        if roll < absentChance + 3 { return foreignGroup }
        return groups.randomElement(using: &rng)!
    }

    private static func randomItem(using rng: inout SeededGenerator) -> KeychainItem {
        let isInternet = Int.random(in: 0..<5, using: &rng) == 0
        return KeychainItem(
            isInternet ? .internetPassword : .genericPassword,
            service: isInternet ? nil : services.randomElement(using: &rng)!,
            account: accounts.randomElement(using: &rng)!,
            accessGroup: randomGroup(using: &rng, absentChance: 30),
            secret: Data(rng.bytes(count: Int.random(in: 0...12, using: &rng))),
            label: labels.randomElement(using: &rng)!,
            isSynchronizable: Int.random(in: 0..<4, using: &rng) == 0,
            accessibility: classes.randomElement(using: &rng)!,
            server: isInternet ? servers.randomElement(using: &rng)! : nil)
    }

    /// Queries give few attributes, so that most of them match something.
    private static func randomQuery(using rng: inout SeededGenerator, model: FuzzModel) -> QuerySpec {
        func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }
        var spec = QuerySpec()
        spec.itemClass = chance(20) ? .internetPassword : .genericPassword
        spec.group = randomGroup(using: &rng, absentChance: 70)
        if chance(35) { spec.service = services.randomElement(using: &rng)! }
        if chance(35) { spec.account = accounts.randomElement(using: &rng)! }
        if spec.itemClass == .internetPassword, chance(35) { spec.server = servers.randomElement(using: &rng)! }
        if chance(15) { spec.label = labels.randomElement(using: &rng)! }
        spec.synchronizable = [.no, .any, .any, .yes].randomElement(using: &rng)!
        if chance(20) { spec.accessibility = classes.randomElement(using: &rng)! }
        if chance(10), let target = model.all.randomElement(using: &rng) { spec.reference = target.reference }
        spec.caseInsensitive = chance(25)
        return spec
    }

    private static func randomChanges(using rng: inout SeededGenerator) -> ChangeSpec {
        var spec = ChangeSpec()
        guard Int.random(in: 0..<12, using: &rng) != 0 else { return spec }  // sometimes nothing: errSecParam
        repeat {
            switch Int.random(in: 0..<7, using: &rng) {
            case 0: spec.service = .some(services.randomElement(using: &rng)!)
            case 1: spec.account = .some(accounts.randomElement(using: &rng)!)
            case 2: spec.label = .some(labels.randomElement(using: &rng)!)
            case 3: spec.secret = Data(rng.bytes(count: Int.random(in: 0...12, using: &rng)))
            case 4: spec.isSynchronizable = Bool.random(using: &rng)
            case 5: spec.accessibility = classes.randomElement(using: &rng)!
            default: spec.group = randomGroup(using: &rng, absentChance: 0)
            }
        } while Bool.random(using: &rng)
        return spec
    }

    var description: String {
        switch self {
        case .add(let item):
            "add \(item.itemClass.rawValue) group:\(item.accessGroup?.rawValue ?? "default") svc:\(item.service ?? "nil") acct:\(item.account ?? "nil") srv:\(item.server ?? "nil") sync:\(item.isSynchronizable) \(item.accessibility.rawValue)"
        case .query(let spec, let limit, let secrets): "query \(spec) limit:\(limit) secrets:\(secrets)"
        case .update(let spec, let changes): "update \(spec) with \(changes)"
        case .delete(let spec): "delete \(spec)"
        case .setLockState(let state): "set lock state \(state)"
        }
    }
}

/// The in-memory model: items per group in insertion order, and the lock state.
private struct FuzzModel {
    var items: [GroupIdentifier: [ModelItem]] = [:]
    var state: DeviceLockState = .unlocked

    /// Every item, in the identity's group order and then insertion order.
    var all: [ModelItem] { FuzzOperation.groups.flatMap { items[$0] ?? [] } }

    func entitled(_ group: GroupIdentifier?) -> Bool { group.map(FuzzOperation.groups.contains) ?? true }

    func usable(_ accessibility: Accessibility) -> Bool {
        switch state {
        case .unlocked: true
        case .locked: accessibility != .whenUnlocked
        case .beforeFirstUnlock: accessibility == .always
        }
    }

    /// Predicts an add, given the item as the keyring stored it (for its reference and date).
    mutating func add(_ item: KeychainItem, stored: KeychainItem?) -> FuzzOutcome {
        guard entitled(item.accessGroup) else { return .failure(.missingEntitlement) }
        guard usable(item.accessibility) else { return .failure(.interactionNotAllowed) }
        // Built from what was asked for; only the random reference and the clock's date
        // come from what the keyring returned.
        var resolved = item
        resolved.accessGroup = item.accessGroup ?? FuzzOperation.groups[0]
        resolved.persistentReference = stored?.persistentReference
        resolved.creationDate = stored?.creationDate
        let predicted = ModelItem(resolved)
        if all.contains(where: { $0.key == predicted.key }) { return .failure(.duplicateItem) }
        items[predicted.group, default: []].append(predicted)
        return .done
    }

    func query(_ spec: QuerySpec, limit: MatchLimit, includingSecrets: Bool) -> FuzzOutcome {
        guard entitled(spec.group) else { return .failure(.missingEntitlement) }
        let matches = all.filter(spec.matches)
        guard matches.allSatisfy({ usable($0.accessibility) }) else { return .failure(.interactionNotAllowed) }
        let count: Int
        switch limit {
        case .one: count = 1
        case .all: count = matches.count
        case .count(let n): count = n
        }
        return .items(matches.prefix(count).map { item in
            var item = item
            if !includingSecrets { item.secret = Data() }
            return item
        })
    }

    mutating func update(_ spec: QuerySpec, _ changes: ChangeSpec) -> FuzzOutcome {
        guard !changes.isEmpty else { return .failure(.invalidParameter) }
        guard entitled(spec.group), entitled(changes.group) else { return .failure(.missingEntitlement) }
        let matches = all.filter(spec.matches)
        guard !matches.isEmpty else { return .failure(.itemNotFound) }
        guard matches.allSatisfy({ usable($0.accessibility) }) else { return .failure(.interactionNotAllowed) }
        if let accessibility = changes.accessibility, !usable(accessibility) { return .failure(.interactionNotAllowed) }
        var next: [GroupIdentifier: [ModelItem]] = [:]
        var moved: [ModelItem] = []
        for group in FuzzOperation.groups {
            for item in items[group] ?? [] {
                guard spec.matches(item) else {
                    next[group, default: []].append(item)
                    continue
                }
                let changed = changes.apply(to: item)
                if changed.group == group { next[group, default: []].append(changed) } else { moved.append(changed) }
            }
        }
        if let target = changes.group { next[target, default: []] += moved }
        let keys = FuzzOperation.groups.flatMap { next[$0] ?? [] }.map(\.key)
        guard Set(keys).count == keys.count else { return .failure(.duplicateItem) }
        items = next
        return .count(matches.count)
    }

    mutating func delete(_ spec: QuerySpec) -> FuzzOutcome {
        guard entitled(spec.group) else { return .failure(.missingEntitlement) }
        let matches = all.filter(spec.matches)
        guard !matches.isEmpty else { return .failure(.itemNotFound) }
        guard matches.allSatisfy({ usable($0.accessibility) }) else { return .failure(.interactionNotAllowed) }
        for group in FuzzOperation.groups { items[group] = (items[group] ?? []).filter { !spec.matches($0) } }
        return .count(matches.count)
    }
}

/// One keyring and its model, stepped together.
private struct FuzzRun {
    let keyring: Keyring
    var model = FuzzModel()

    private func outcome(_ body: () throws(KeyringError) -> FuzzOutcome) -> FuzzOutcome {
        do {
            return try body()
        } catch {
            return .failure(error.status)
        }
    }

    /// Runs `operation` on the keyring and on the model: (actual, expected).
    mutating func perform(_ operation: FuzzOperation) throws -> (FuzzOutcome, FuzzOutcome) {
        switch operation {
        case .add(let item):
            var stored: KeychainItem?
            let actual = outcome { () throws(KeyringError) in
                stored = try keyring.add(item)
                return .done
            }
            return (actual, model.add(item, stored: stored))
        case .query(let spec, let limit, let includingSecrets):
            let actual = outcome { () throws(KeyringError) in
                .items(try keyring.items(matching: spec.query, limit: limit, includingSecrets: includingSecrets).map(ModelItem.init))
            }
            return (actual, model.query(spec, limit: limit, includingSecrets: includingSecrets))
        case .update(let spec, let changes):
            let actual = outcome { () throws(KeyringError) in .count(try keyring.update(matching: spec.query, with: changes.changes)) }
            return (actual, model.update(spec, changes))
        case .delete(let spec):
            let actual = outcome { () throws(KeyringError) in .count(try keyring.delete(matching: spec.query)) }
            return (actual, model.delete(spec))
        case .setLockState(let state):
            try keyring.home.setLockState(state)
            model.state = state
            return (.done, .done)
        }
    }

    /// Every stored item, read from the sealed files whatever the lock state, and the model's.
    func storedAndModelled() throws -> ([ModelItem], [ModelItem]) {
        let store = try ItemTable(home: keyring.home)
        let stored = try FuzzOperation.groups.flatMap { try store.items(in: $0) }.map(ModelItem.init)
        return (stored, model.all)
    }
}

/// A home on tmpfs when there is one: the model checks semantics, not durability, and fsync
/// on tmpfs costs nothing, which keeps thousands of writes within seconds.
private struct FuzzRoot {
    let url: URL
    let home: KeyringHome

    init() throws {
        let base = FileManager.default.isWritableFile(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        url = base.appendingPathComponent("groupvault-fuzz-\(UUID().uuidString.prefix(8))", isDirectory: true)
        home = KeyringHome(root: url)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}
