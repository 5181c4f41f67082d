import Floors
import Foundation

/// The C floors over 1 KiB messages, with the key, context and buffers they reuse: what a
/// reader or writer that already holds its key must still do per operation.
final class CryptoFloor {
    /// The message every floor seals: as long as a ``BenchRecord`` payload.
    let message: [UInt8]
    /// Additional data, the size of a record's identity (group and name).
    let context = Array("group.com.example.bench/r05000".utf8)
    /// The key; a reseal floor seals with ``newKey`` instead.
    private(set) var key = [UInt8](repeating: 0, count: Int(FLOOR_KEY_BYTES))
    /// The key a reseal moves to.
    private(set) var newKey = [UInt8](repeating: 0, count: Int(FLOOR_KEY_BYTES))
    /// A sealed copy of ``message`` in memory, for the open floor.
    private(set) var sealed: [UInt8]
    private var output: [UInt8]
    /// The directory the file floors work in, kept open as a long-lived writer would.
    let directory: URL
    private let directoryDescriptor: Int32

    /// Floors writing under `directory`, which must exist.
    init(directory: URL, messageSize: Int) throws {
        guard floor_initialize() == 0 else { throw BenchmarkFailure("libsodium failed to initialize") }
        message = (0..<messageSize).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        sealed = [UInt8](repeating: 0, count: messageSize + Int(FLOOR_NONCE_BYTES + FLOOR_TAG_BYTES))
        output = [UInt8](repeating: 0, count: messageSize)
        self.directory = directory
        directoryDescriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryDescriptor >= 0 else { throw BenchmarkFailure("cannot open \(directory.path): errno \(errno)") }
        floor_random_key(&key)
        floor_random_key(&newKey)
        try sealInMemory()
    }

    deinit { close(directoryDescriptor) }

    /// XChaCha20-Poly1305 seal of the message into memory, random nonce included.
    func sealInMemory() throws {
        guard floor_seal(&sealed, message, message.count, context, context.count, key) == 0 else {
            throw BenchmarkFailure("floor_seal failed")
        }
    }

    /// XChaCha20-Poly1305 open of the sealed message in memory.
    func openInMemory() throws {
        guard floor_open(&output, sealed, sealed.count, context, context.count, key) == message.count else {
            throw BenchmarkFailure("floor_open failed")
        }
    }

    /// Writes the sealed message to `name` in the directory without fsync (set-up only).
    func writeSealedFile(_ name: String) throws {
        var blob = [UInt8](repeating: 0, count: sealed.count)
        guard floor_seal(&blob, message, message.count, context, context.count, key) == 0,
              floor_write_plain(directory.appendingPathComponent(name).path, blob, blob.count) == 0 else {
            throw BenchmarkFailure("cannot write floor file \(name): errno \(errno)")
        }
    }

    /// Reads `name` and opens it: a warm read's floor.
    func readOpen(_ name: String) throws {
        let path = directory.appendingPathComponent(name).path
        guard floor_read_open(path, &output, output.count, context, context.count, key) == message.count else {
            throw BenchmarkFailure("floor_read_open of \(name) failed: errno \(errno)")
        }
    }

    /// Seals the message and durably replaces `name` (temporary file, fsync, rename, directory
    /// fsync): a durable sealed write's floor.
    func sealDurableReplace(_ name: String) throws {
        guard floor_seal_durable_replace(directoryDescriptor, ".\(name).tmp", name, message, message.count,
                                         context, context.count, key) == 0 else {
            throw BenchmarkFailure("floor_seal_durable_replace of \(name) failed: errno \(errno)")
        }
    }

    /// Reads and opens `name` under the current key, seals it under the new one and durably
    /// replaces it: one record's reseal, at its floor.
    func reseal(_ name: String) throws {
        guard floor_reseal(directoryDescriptor, ".\(name).tmp", name, context, context.count, key, newKey) == 0 else {
            throw BenchmarkFailure("floor_reseal of \(name) failed: errno \(errno)")
        }
    }

    /// After a reseal pass: the new key becomes the current one and a fresh key the next.
    func rotate() {
        key = newKey
        floor_random_key(&newKey)
    }
}

/// A SQLite WAL database of a fixed number of rows: the keyring's floor on SQLite.
final class SQLiteFloor {
    /// `FULL` or `NORMAL`, as the report names it.
    let synchronous: String
    /// The value the next upsert writes. Its first eight bytes count the upserts, so every one
    /// changes its row: SQLite writes nothing for an update that leaves a row as it was, and a
    /// commit with nothing in it would measure no durable work at all.
    private var value: [UInt8]
    private var upserts: UInt64 = 0
    private let database: OpaquePointer

    /// Creates `path` with `rows` rows of `valueSize` bytes.
    init(path: URL, synchronousFull: Bool, rows: Int, valueSize: Int) throws {
        synchronous = synchronousFull ? "FULL" : "NORMAL"
        value = [UInt8](repeating: 0x5A, count: valueSize)
        var reason = [CChar](repeating: 0, count: 256)
        guard let database = floor_database_create(path.path, synchronousFull ? 1 : 0, rows, valueSize, &reason, reason.count) else {
            throw BenchmarkFailure("cannot create the SQLite floor database: \(String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        self.database = database
    }

    deinit { floor_database_close(database) }

    /// Inserts or updates row `index` in its own transaction.
    func upsert(_ index: Int) throws {
        upserts &+= 1
        withUnsafeBytes(of: upserts.littleEndian) { counter in
            for (offset, byte) in counter.enumerated() where offset < value.count { value[offset] = byte }
        }
        guard floor_database_upsert(database, index, value, value.count) == 0 else {
            throw BenchmarkFailure("SQLite upsert failed: \(String(cString: floor_database_error(database)))")
        }
    }

    /// Deletes row `index` in its own transaction.
    func delete(_ index: Int) throws {
        guard floor_database_delete(database, index) == 0 else {
            throw BenchmarkFailure("SQLite delete failed: \(String(cString: floor_database_error(database)))")
        }
    }

    /// Looks row `index` up by primary key; it must exist.
    func select(_ index: Int) throws {
        guard floor_database_select(database, index) == value.count else {
            throw BenchmarkFailure("SQLite point select of row \(index) failed: \(String(cString: floor_database_error(database)))")
        }
    }
}
