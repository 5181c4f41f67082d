#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring

/// What the sync figures' two machines agree on: the benchmark (machine A) and its
/// `SyncObserver` child (machine B) name the same store, key and floor channel.
public enum BenchSync {
    /// The ubiquitous key-value store both machines open (their entitlement's value).
    public static let storeIdentifier = GroupIdentifier(rawValue: "ABCDE12345.com.example.bench")!
    /// The key machine A writes and machine B watches.
    public static let key = "ping"
    /// The bare `LISTEN` channel of the write figure's floor.
    public static let floorChannel = "bench_floor"
    /// The table the floor's `INSERT` writes.
    public static let floorTable = "bench_floor"
    /// Bytes of every value the sync figures write: a 64-byte string.
    public static let valueSize = 64

    /// Round `round`'s value: its number, padded to ``valueSize`` bytes so every write carries
    /// the same bytes.
    public static func value(round: Int) -> String {
        let number = String(round)
        return number + String(repeating: ".", count: max(0, valueSize - number.utf8.count))
    }

    /// The round number a value of ``value(round:)`` carries.
    public static func round(of value: String) -> Int? {
        Int(value.prefix { $0 != "." })
    }
}
