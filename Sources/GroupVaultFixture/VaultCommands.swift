import Dispatch
import FixtureSupport
import Foundation
import Keyring
import Vault

/// Vault commands for multi-process tests.
///
/// Every command builds its identity from its arguments (`--group <app group>`, which is also
/// an access group, optionally `--team`/`--bundle`) and its home from the environment
/// (`GROUPVAULT_HOME`), and speaks a line protocol on standard output that the tests parse:
///
/// - `vault-write --group G [--name N] [--count C] [--start S] [--writer W] [--durability full|atomic]`:
///   writes ``FixtureCounter`` C times (counters S, S+1, ...), printing `wrote <counter> sequence <seq>`
///   after each write has returned.
/// - `vault-write-forever ...`: the same, until killed.
/// - `vault-read-loop --group G [--name N] [--seconds T] [--count C] [--until-sequence Q]`: reads
///   until T seconds pass, C reads succeed, or sequence Q is seen; every read must authenticate
///   (or be `notFound` before the first success) and sequences must never go down. Prints
///   `violation ...` on standard error for each breach and one line
///   `summary reads=.. authentic=.. notFound=.. lastSequence=.. violations=..`; exits 1 on any violation.
/// - `vault-observe --group G [--name N] [--events K] [--until NAME] [--seconds T]`: subscribes,
///   prints `ready`, then `change <kind> <name|*>` for each change; exits 0 after K changes or
///   after a change to NAME, 2 when T seconds pass first.
/// - `vault-read-once --group G [--name N]`: prints `value <writer> <counter> sequence <seq>` or
///   `refused <code>`.
///
/// Usage errors exit 64, failures that are not part of what a command checks exit 1.
let vaultCommands: [String: FixtureCommand] = [
    "vault-write": { runFixture($0, VaultFixture.write(forever: false)) },
    "vault-write-forever": { runFixture($0, VaultFixture.write(forever: true)) },
    "vault-read-loop": { runFixture($0, VaultFixture.readLoop) },
    "vault-observe": { runFixture($0, VaultFixture.observe) },
    "vault-read-once": { runFixture($0, VaultFixture.readOnce) },
]

/// The record the vault commands write and read. The tests declare the same shape.
struct FixtureCounter: VaultRecord, Equatable {
    static let schemaVersion: UInt32 = 1
    /// Which writer process wrote it.
    var writer: String
    /// That writer's write number: it only goes up.
    var counter: Int
}

/// The vault commands' shared parts: the vault and the record they read and write.
private enum VaultFixture {
    /// The vault of `--group` for an identity entitled to it, over the home from the environment.
    static func vault(_ options: FixtureOptions) throws -> Vault {
        let group = try GroupIdentifier(validating: try options.string("group"))
        let identity = Identity(
            teamID: options.optionalString("team"),
            bundleID: try options.string("bundle", default: "com.example.fixture"),
            applicationGroups: [group])
        let durability = WriteDurability(rawValue: try options.string("durability", default: "full"))
        guard let durability else { throw UsageError(message: "--durability is full or atomic") }
        return try Vault(keyring: Keyring(identity: identity, home: try .fromEnvironment()), group: group, durability: durability)
    }

    static func recordName(_ options: FixtureOptions) throws(UsageError) -> String {
        try options.string("name", default: "state")
    }

    // MARK: Commands

    static func write(forever: Bool) -> (FixtureOptions) throws -> Int32 {
        { options in
            let vault = try vault(options)
            let name = try recordName(options)
            let writer = try options.string("writer", default: "w\(getpid())")
            let start = try options.integer("start", default: 1)
            let count = forever ? Int.max : try options.integer("count", default: 1)
            var counter = start
            while counter - start < count {
                let header = try vault.write(FixtureCounter(writer: writer, counter: counter), to: name)
                printLine("wrote \(counter) sequence \(header.sequence)")
                counter += 1
            }
            return 0
        }
    }

    static func readLoop(_ options: FixtureOptions) throws -> Int32 {
        let vault = try vault(options)
        let name = try recordName(options)
        let recordName = try RecordName(validating: name)
        let duration = Double(try options.integer("seconds", default: 3))
        let wantedReads = try options.optionalInteger("count")
        let untilSequence = try options.optionalInteger("until-sequence").map(UInt64.init)

        let deadline = Date().addingTimeInterval(duration)
        var reads = 0, authentic = 0, notFound = 0, violations = 0
        var lastSequence: UInt64 = 0
        var lastCounter: [String: Int] = [:]
        func violation(_ text: String) {
            violations += 1
            printError("violation read \(reads): \(text)")
        }

        while Date() < deadline, violations == 0 {
            reads += 1
            let value: FixtureCounter
            do {
                // The public path: authentication, trust ledger, freshness, decoding.
                value = try vault.read(FixtureCounter.self, from: name)
            } catch let error where error.code == .notFound && authentic == 0 {
                notFound += 1
                continue
            } catch {
                violation("refused: \(error)")
                continue
            }
            authentic += 1
            if let previous = lastCounter[value.writer], value.counter < previous {
                violation("writer \(value.writer) went back from \(previous) to \(value.counter)")
            }
            lastCounter[value.writer] = value.counter

            // The sequence, from an authenticated open of the file as it is now.
            do {
                let sequence = try vault.openRecord(recordName).header.sequence
                if sequence < lastSequence { violation("sequence went down from \(lastSequence) to \(sequence)") }
                lastSequence = max(lastSequence, sequence)
            } catch {
                violation("open refused after a successful read: \(error)")
            }
            if let wantedReads, authentic >= wantedReads { break }
            if let untilSequence, lastSequence >= untilSequence { break }
        }
        printLine("summary reads=\(reads) authentic=\(authentic) notFound=\(notFound) lastSequence=\(lastSequence) violations=\(violations)")
        return violations == 0 ? 0 : 1
    }

    static func observe(_ options: FixtureOptions) throws -> Int32 {
        let vault = try vault(options)
        let name = options.optionalString("name")
        let wantedEvents = try options.optionalInteger("events")
        let until = options.optionalString("until")
        let seconds = try options.integer("seconds", default: 20)

        let changes = try vault.changes(to: name)
        printLine("ready")
        let done = DispatchSemaphore(value: 0)
        let consumer = Task {
            var seen = 0
            for await change in changes {
                printLine("change \(change.kind.rawValue) \(change.name ?? "*")")
                seen += 1
                if let wantedEvents, seen >= wantedEvents { break }
                if let until, change.name == until { break }
            }
            done.signal()
        }
        // The consumer runs on the cooperative pool; this thread only waits for it.
        if done.wait(timeout: .now() + .seconds(seconds)) == .timedOut {
            consumer.cancel()
            printError("timeout after \(seconds) s")
            return 2
        }
        return 0
    }

    static func readOnce(_ options: FixtureOptions) throws -> Int32 {
        let vault = try vault(options)
        let name = try recordName(options)
        do {
            let value = try vault.read(FixtureCounter.self, from: name)
            let sequence = try vault.openRecord(RecordName(validating: name)).header.sequence
            printLine("value \(value.writer) \(value.counter) sequence \(sequence)")
        } catch {
            printLine("refused \(error.code)")
        }
        return 0
    }
}
