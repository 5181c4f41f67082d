/// A table of at most ``capacity`` values by key that, once full, drops the value set first to
/// make room for a new key.
///
/// For what a process keeps between operations and must keep bounded: a `Vault`'s values
/// read and judged, a keyring database's answers to searches. A value set again under its key
/// keeps its place in the order (the table drops the oldest key, not the least used one), and
/// a removed key leaves the order with it.
///
/// Inlinable, for the reason ``ExactBytesMemo`` is: its users' warm paths look it up on every
/// call, and from another module its unspecialised generic entry points cost more than the
/// lookup itself. Public rather than `package` for that reason alone.
public struct OldestFirstTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// At most this many values are kept.
    public let capacity: Int
    @usableFromInline var values: [Key: Value] = [:]
    /// The keys held, in the order they were first set.
    @usableFromInline var order: [Key] = []

    @inlinable
    public init(capacity: Int) {
        precondition(capacity > 0, "a table must hold at least one value")
        self.capacity = capacity
    }

    /// The value held under `key`, if any.
    @inlinable
    public subscript(key: Key) -> Value? {
        values[key]
    }

    /// Holds `value` under `key`, dropping the oldest key when a new one would exceed
    /// ``capacity``.
    @inlinable
    public mutating func set(_ value: Value, for key: Key) {
        guard values.updateValue(value, forKey: key) == nil else { return }
        order.append(key)
        if order.count > capacity { values[order.removeFirst()] = nil }
    }

    /// Drops the value held under `key`, if any.
    @inlinable
    public mutating func remove(_ key: Key) {
        guard values.removeValue(forKey: key) != nil else { return }
        order.removeAll { $0 == key }
    }

    /// How many values are held.
    @inlinable
    public var count: Int { values.count }
}
