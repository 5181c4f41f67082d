import BenchModel
import Foundation
import Keyring

/// `Keyring.item(matching:)` and `Keyring.add` at each group size, for one ``ItemShape``,
/// interleaved with SQLite WAL point selects and upserts on a table of as many rows (the floor)
/// and with the peers holding the same items: SQLCipher (a child process) and the kernel keyring.
final class KeyringFigures {
    /// How the group's items spread over services and accounts.
    let shape: ItemShape
    /// The keyring's home; the cold lookup's process opens it too.
    let home: URL
    private let keyring: Keyring
    /// A second group of the same shape at the smallest size, kept for the whole run: at the
    /// largest size the lookup's growth is measured against it in alternating blocks, so the
    /// growth targets compare medians of the same stretch of time, not of runs minutes apart.
    private let smallKeyring: Keyring
    private let smallSize: Int
    private let scratch: URL
    private let executables: Executables
    private var growth: GroupGrowth
    private let schedule: Schedule
    /// The add's median at each size measured, for its growth target.
    private var addMedians: [(size: Int, median: Double)] = []
    /// The SQLCipher peer holding the same items at the last size measured; the cold lookup's
    /// peer process opens its database.
    private(set) var cipher: SQLCipherPeer?

    /// Items in the group now.
    var size: Int { growth.size }

    /// The secret every item holds, and the peers' payload: 1 KiB.
    static let secretSize = 1024
    /// The size of a row in the SQLite floor: a sealed item with its attributes.
    static let rowSize = secretSize + 224

    init(root: URL, shape: ItemShape, executables: Executables, options: Options) throws {
        self.shape = shape
        scratch = root.appendingPathComponent("keyring-floors-\(shape.slug)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        home = root.appendingPathComponent("keyring-home-\(shape.slug)", isDirectory: true)
        keyring = BenchHome.keyring(root: home)
        smallKeyring = BenchHome.keyring(root: root.appendingPathComponent("keyring-home-\(shape.slug)-small", isDirectory: true))
        smallSize = options.sizes.first ?? 10
        self.executables = executables
        growth = GroupGrowth(budgetSeconds: options.populationBudget)
        schedule = options.schedule
        for index in 0..<smallSize { _ = try smallKeyring.add(item(index)) }
    }

    /// The `index`th item of the shape: a 1 KiB secret.
    func item(_ index: Int) -> KeychainItem {
        KeychainItem(
            service: shape.service(index), account: shape.account(index), accessGroup: BenchHome.group,
            secret: Data(repeating: UInt8(truncatingIfNeeded: index), count: Self.secretSize),
            accessibility: .afterFirstUnlock)
    }

    /// The query that finds item `index` and only it.
    func query(_ index: Int) -> ItemQuery {
        ItemQuery(service: shape.service(index), account: shape.account(index), accessGroup: BenchHome.group)
    }

    /// The service and account of item `index`, as the peers key it.
    func key(_ index: Int) -> (service: String, account: String) { (shape.service(index), shape.account(index)) }

    /// Fills the group up to `target` items (or the population deadline); returns the size.
    func grow(to target: Int) throws -> Int {
        try growth.grow(to: target) { index in _ = try keyring.add(item(index)) }
    }

    /// The lookup figures at the group's current size, and the add figure, flush-bound, for
    /// ``measureFlushBound(_:runs:_:)`` to run with the others.
    func measure(target: Int, sizeForLookupTarget: Int) throws -> (outcome: Outcome, flushBound: [FlushBoundFigure]) {
        let size = self.size
        let sizeLabel = "\(count(size)) items, \(shape.rawValue)"
        var outcome = Outcome()
        let full = try SQLiteFloor(path: scratch.appendingPathComponent("full-\(size).sqlite"), synchronousFull: true, rows: size, valueSize: Self.rowSize)
        let normal = try SQLiteFloor(path: scratch.appendingPathComponent("normal-\(size).sqlite"), synchronousFull: false, rows: size, valueSize: Self.rowSize)
        // The peers hold the same items, built afresh at each size. The SQLCipher child lasts
        // until the next size (the cold lookup opens its database). The kernel keyring is built
        // for the lookups and again for each run of the add figure, and destroyed after each:
        // the kernel's key quota for root (25,000,000 bytes) holds one 10,000-key keyring, not
        // one per item shape while the add figures of the three shapes take turns.
        let cipher = try SQLCipherPeer(
            executables, path: scratch.appendingPathComponent("sqlcipher-\(size).db"), rows: size, bytes: Self.secretSize, key: key)
        self.cipher = cipher
        let kernelName = "groupvault-bench-\(shape.slug)-\(size)"
        var kernelPeer: KernelKeyringPeer? = try KernelKeyringPeer(name: kernelName, keys: size, bytes: Self.secretSize, key: key)
        func kernel() -> KernelKeyringPeer {
            guard let kernelPeer else { preconditionFailure("the kernel keyring peer is built before each figure that uses it") }
            return kernelPeer
        }
        let notes = [growth.shortfall(target: target, reached: size, unit: "items")].compactMap { $0 }

        // The middle item, so a linear scan is not flattered by finding the first one.
        let middle = size / 2
        let lookupQuery = query(middle)
        let (service, account) = key(middle)
        _ = try keyring.item(matching: lookupQuery)
        // The same keyring reading every search from the rows: the lookup's reference row.
        let uncached = Self.runningEverySearch(keyring)
        _ = try uncached.item(matching: lookupQuery)
        let lookupLabel = "`Keyring.item(matching:)` by service and account, warm"
        let lookupFloor = "SQLite point select by primary key, \(count(size)) rows (WAL, synchronous FULL)"
        let cipherLookup = "SQLCipher point select by service and account, \(count(size)) rows (child process)"
        let kernelLookup = "kernel keyring `keyctl_search` + `keyctl_read`, \(count(size)) keys"
        // The hot loop, then the same with a 1 ms idle gap before each operation (untimed): a
        // caller that looks an item up now and then finds caches and the CPU's state colder.
        for idle in [false, true] {
            func gap() { if idle { usleep(1_000) } }
            let contenders = [
                Contender(label: lookupLabel, role: .groupVault) {
                    gap()
                    return try .timing { _ = try self.keyring.item(matching: lookupQuery) }
                },
                Contender(label: lookupFloor, role: .floor) {
                    gap()
                    return try .timing { try full.select(middle) }
                },
                Contender(label: "`Keyring.item(matching:)`, every search from the rows (`keepsFoundItems = false`)", role: .reference(lessWork: nil)) {
                    gap()
                    return try .timing { _ = try uncached.item(matching: lookupQuery) }
                },
                Contender(label: "SQLite point select by primary key, \(count(size)) rows (WAL, synchronous NORMAL)", role: .reference(lessWork: nil)) {
                    gap()
                    return try .timing { try normal.select(middle) }
                },
                Contender(label: cipherLookup, role: .peer(lessWork: nil)) {
                    gap()
                    return try cipher.get(service, account)
                },
                Contender(label: kernelLookup, role: .peer(lessWork: "kernel memory, nothing on disk")) {
                    gap()
                    return try .timing { try kernel().read(service, account) }
                },
            ]
            // The hot loop on one CPU, SQLCipher's child beside this thread, so that no CPU
            // idles between contenders; the idle gap's loop idles every CPU on purpose.
            let lookup = idle
                ? try interleave(contenders, schedule)
                : try onOneCPU(with: [cipher.processIdentifier]) { try interleave(contenders, schedule) }
            outcome.sections.append(Section(
                title: "`Keyring.item(matching:)`, \(idle ? "after a 1 ms idle gap" : "hot loop"), group of \(sizeLabel)",
                notes: notes + [
                    "Finds the middle item of \(sizeLabel) with its \(count(Self.secretSize))-byte secret"
                        + (idle ? ", each operation (of every contender) preceded by an untimed 1 ms sleep. "
                            : ", back to back, this process and SQLCipher's child held on one CPU (Benchmarks/README.md, \"Placement\"). ")
                        + "The search is made again while nothing changed, so the keyring returns the items it found then, after "
                        + "its checks and the database's stamp (docs/ARCHITECTURE.md); the reference row reads every search from "
                        + "the rows (`keepsFoundItems = false`): the `SELECT`, the AEAD open and the matching. "
                        + "The floor is a prepared `SELECT` by a 16-byte primary key in a WAL table of \(count(size)) rows of "
                        + "\(Self.rowSize) bytes, decrypting nothing. The peers hold the same items: SQLCipher (raw 256-bit key, "
                        + "primary key (service, account), timed inside its child process) and a kernel keyring of its own "
                        + "(\"user\" keys described service/account).",
                ],
                table: timeTable(lookup)))
            let lookupMedian = result(lookupLabel, in: lookup).median
            let cipherRatio = lookupMedian / result(cipherLookup, in: lookup).median
            outcome.checks.append(.ratio(
                "`Keyring.item(matching:)`\(idle ? " after 1 ms idle" : ""), \(sizeLabel)", ratio: cipherRatio, limit: 2,
                measured: ratioText(lookup, lookupLabel, cipherLookup, floorName: "SQLCipher point select")
                    + "; kernel keyring read \(microseconds(result(kernelLookup, in: lookup).median)) µs",
                target: "≤ 2× SQLCipher point select"))
            if !idle && target == sizeForLookupTarget {
                outcome.checks.append(sizedCheck(
                    "`Keyring.item(matching:)` at \(count(target)) items, \(shape.rawValue)",
                    ratio: lookupMedian / result(lookupFloor, in: lookup).median, limit: 10,
                    reached: size, required: target, unit: "items",
                    measured: ratioText(lookup, lookupLabel, lookupFloor, floorName: "SQLite point select"),
                    target: "≤ 10× SQLite point select"))
            }
        }

        kernelPeer = nil

        // Each add is undone, untimed, so every add finds the group at exactly `size` items;
        // the floor and the peers insert a new row or key and delete it the same way.
        let extra = item(size)
        let extraQuery = query(size)
        let (extraService, extraAccount) = key(size)
        let addLabel = "`Keyring.add` of a new item"
        let addFloor = "SQLite WAL upsert of a new row, synchronous FULL, \(count(size)) rows"
        let cipherAdd = "SQLCipher WAL insert of a new row, synchronous FULL, \(count(size)) rows (child process)"
        let addContenders = [
            Contender(label: addLabel, role: .groupVault) {
                let measurement = try Measurement.timing { _ = try self.keyring.add(extra) }
                guard try self.keyring.delete(matching: extraQuery) == 1 else { throw BenchmarkFailure("the added item was not there to delete") }
                return measurement
            },
            Contender(label: addFloor, role: .floor) {
                let measurement = try Measurement.timing { try full.upsert(size) }
                try full.delete(size)
                return measurement
            },
            Contender(label: "SQLite WAL upsert of a new row, synchronous NORMAL, \(count(size)) rows",
                      role: .reference(lessWork: "no fsync at commit (WAL NORMAL syncs at checkpoints only)")) {
                let measurement = try Measurement.timing { try normal.upsert(size) }
                try normal.delete(size)
                return measurement
            },
            Contender(label: cipherAdd, role: .peer(lessWork: nil)) {
                let measurement = try cipher.put(extraService, extraAccount, bytes: Self.secretSize)
                try cipher.delete(extraService, extraAccount)
                return measurement
            },
            Contender(label: "kernel keyring `add_key`, \(count(size)) keys", role: .peer(lessWork: "kernel memory, nothing on disk")) {
                let peer = kernel()
                let measurement = try Measurement.timing { try peer.add(extraService, extraAccount, bytes: Self.secretSize) }
                try peer.remove(extraService, extraAccount)
                return measurement
            },
        ]
        let addFigure = FlushBoundFigure(name: "`Keyring.add`, \(sizeLabel)", contenders: addContenders, eachRun: {
            kernelPeer = try KernelKeyringPeer(name: kernelName, keys: size, bytes: Self.secretSize) { self.key($0) }
            return { kernelPeer = nil }
        }, report: { add in
            self.addReport(add, size: size, sizeLabel: sizeLabel, notes: notes, addLabel: addLabel, addFloor: addFloor, cipherAdd: cipherAdd)
        })
        return (outcome, [addFigure])
    }

    /// The add figure's section and checks, from every run.
    private func addReport(
        _ add: [ContenderResult], size: Int, sizeLabel: String, notes: [String], addLabel: String, addFloor: String, cipherAdd: String
    ) -> Outcome {
        var outcome = Outcome()
        outcome.sections.append(Section(
            title: "`Keyring.add`, group of \(sizeLabel)",
            notes: notes + [
                "Adds one item to a group of \(sizeLabel) and, untimed, deletes it again. The floor inserts a \(Self.rowSize)-byte row "
                    + "with a prepared upsert in its own transaction (one WAL commit, fsynced under synchronous FULL) and deletes it, untimed. "
                    + "SQLCipher inserts the same \(count(Self.secretSize))-byte secret the same way (`INSERT OR REPLACE`: Debian's "
                    + "SQLCipher 3.4 predates SQLite's upsert); the kernel keyring's `add_key` is the same call, in memory.",
            ],
            table: timeTable(add)))
        let addMedian = result(addLabel, in: add).median
        addMedians.append((size, addMedian))
        outcome.checks.append(.ratio(
            "`Keyring.add`, \(sizeLabel)", of: addLabel, over: addFloor, named: "SQLite WAL FULL upsert",
            in: add, limit: 2, target: "≤ 2× SQLite WAL FULL upsert"))
        outcome.checks.append(.ratio(
            "`Keyring.add` against SQLCipher, \(sizeLabel)", of: addLabel, over: cipherAdd, named: "SQLCipher WAL FULL insert",
            in: add, limit: 2, target: "≤ 2× SQLCipher WAL FULL upsert"))
        return outcome
    }

    /// `keyring` with `keepsFoundItems` off: every search runs its `SELECT`, opens and matches
    /// the rows, where the default returns the items it found while nothing changed.
    private static func runningEverySearch(_ keyring: Keyring) -> Keyring {
        var running = keyring
        running.keepsFoundItems = false
        return running
    }

    /// The lookup's growth figure in the group as filled (the largest size reached) against the
    /// small group, and the growth targets: the lookup's, both as kept found items answer it and
    /// as it runs the query, from alternating blocks; the add's, flush-bound, from the first and
    /// last sizes' medians. No lookup growth when the group never grew past the small group's size.
    func growthFigure(required: Int) throws -> Outcome {
        var outcome = Outcome()
        if size > smallSize { outcome.append(try lookupGrowthFigure(required: required)) }
        if let first = addMedians.first, let last = addMedians.last, addMedians.count > 1 {
            let ratio = last.median / first.median
            outcome.checks.append(growthCheck(
                "`Keyring.add`", from: first.size, reached: last.size, required: required, unit: "items", qualifier: shape.rawValue,
                ratio: ratio, limit: 2,
                measured: "\(microseconds(first.median)) µs → \(microseconds(last.median)) µs at \(count(last.size)) items = \(times(ratio))"))
        }
        return outcome
    }

    /// The lookups in the group as filled and in the small group, in alternating blocks, with
    /// their growth targets.
    private func lookupGrowthFigure(required: Int) throws -> Outcome {
        let (largeQuery, smallQuery) = (query(size / 2), query(smallSize / 2))
        let (largeRunning, smallRunning) = (Self.runningEverySearch(keyring), Self.runningEverySearch(smallKeyring))
        let (section, growths) = try measureGrowthInBlocks(
            [
                GrowthOperation(name: "`Keyring.item(matching:)`", variant: "found items kept (the default)", limits: [2, 1.3],
                                large: { _ = try self.keyring.item(matching: largeQuery) },
                                small: { _ = try self.smallKeyring.item(matching: smallQuery) }),
                GrowthOperation(name: "`Keyring.item(matching:)`", variant: "running the query (`keepsFoundItems = false`)", limits: [1.3],
                                large: { _ = try largeRunning.item(matching: largeQuery) },
                                small: { _ = try smallRunning.item(matching: smallQuery) }),
            ],
            title: "`Keyring.item(matching:)` growth, \(count(smallSize)) → \(count(size)) items, \(shape.rawValue)",
            what: "The hot-loop lookup of the middle item, twice: as the keyring answers a search made again while nothing "
                + "changed (the items it found then, after its checks and the database's stamp), and with `keepsFoundItems = false`, "
                + "every search running its `SELECT`, the AEAD open and the matching: only this one would show a lookup that "
                + "scans the group.",
            size: size, baseSize: smallSize, unit: "items",
            notes: [growth.shortfall(target: required, reached: size, unit: "items")].compactMap { $0 }, schedule: schedule)
        return Outcome(sections: [section], checks: growths.flatMap { $0.checks(required: required, qualifier: shape.rawValue) })
    }
}
