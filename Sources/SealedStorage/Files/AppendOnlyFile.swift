import SystemPackage

extension FaultPoint {
    /// Writing a record at the end of an ``AppendOnlyFile``.
    package static let appendRecord = FaultPoint(rawValue: "append-record")
    /// `fdatasync` of an ``AppendOnlyFile`` after a record was written.
    package static let syncAppended = FaultPoint(rawValue: "sync-appended")
    /// An append's steps, in order.
    package static let appendSteps: [FaultPoint] = [.appendRecord, .syncAppended]
}

/// An existing file held open for appending records, each made durable (`fdatasync`) before
/// ``append(_:flush:)`` returns unless its writer says it can wait: the journal of a state kept
/// as a snapshot plus the changes since it.
///
/// Why a file of its own rather than ``DirectoryHandle/replace(_:with:durability:)``: a
/// replace writes the whole content and costs two flushes and a rename, so a state rewritten
/// whole on every change costs the square of its size over a run; an append costs what changed
/// and one `fdatasync`. The file is never created here: its writer creates it with a durable
/// replace (so its name survives a crash before any record is acknowledged), then opens it
/// with ``DirectoryHandle/openForAppending(_:maximumSize:)``. A crash in the middle of an append
/// can leave a partial record at the end; the reader must recognise one (a length and a tag).
package final class AppendOnlyFile: Sendable {
    /// Its path, for messages only: built when one is written (a `FilePath` joined for every
    /// append was a twentieth of a synced `set`'s instructions).
    package var path: FilePath { directoryPath.appending(name) }
    private let directoryPath: FilePath
    private let name: String
    /// Its size when opened.
    package let sizeWhenOpened: Int
    private let descriptor: FileDescriptor

    fileprivate init(descriptor: FileDescriptor, directoryPath: FilePath, name: String, size: Int) {
        self.descriptor = descriptor
        self.directoryPath = directoryPath
        self.name = name
        sizeWhenOpened = size
    }

    deinit {
        Syscall.close(descriptor)
    }

    /// When an appended record reaches the disk.
    package enum Flush: Sendable {
        /// `fdatasync`ed before ``AppendOnlyFile/append(_:flush:)`` returns.
        case beforeReturning
        /// Written, not flushed: durable with the next append that flushes (an `fdatasync`
        /// makes every write before it durable) or whatever replaces the file. A power failure
        /// before then can lose it or leave it torn at the end of the file, never with a flushed
        /// record after it. For a record whose loss its writer can repair; a killed process
        /// loses nothing it wrote.
        case withNextFlush
    }

    /// Writes `bytes` at the end of the file, then, as `flush` says, `fdatasync`s it.
    /// - Throws: ``StorageError``: the system error of the write, or
    ///   ``StorageError/Kind/notDurable`` when the sync failed. Either way the bytes may be in the
    ///   file in part or whole; the caller must not append after them before it has replaced the
    ///   file (its reader would take the next record for the rest of this one).
    package func append(_ bytes: [UInt8], flush: Flush = .beforeReturning) throws(StorageError) {
        do {
            try Syscall.writeAll(descriptor, bytes, step: .appendRecord)
        } catch {
            throw StorageError(.system(error), operation: "append", path: path)
        }
        guard flush == .beforeReturning else { return }
        do {
            try Syscall.syncData(descriptor, step: .syncAppended)
        } catch {
            throw StorageError(.notDurable(error), operation: "sync appended record", path: path)
        }
    }
}

extension DirectoryHandle {
    /// Opens the existing file `name` in this directory for appending (`O_APPEND`, never through
    /// a link), vetted as ``read(_:maximumSize:forbiddenModeBits:)`` vets what it reads: a
    /// regular file with one link, owned and moded as the sharing allows, at most `maximumSize`
    /// bytes. Returns `nil` when there is no file `name`.
    package func openForAppending(_ name: String, maximumSize: Int) throws(StorageError) -> AppendOnlyFile? {
        try checkName(name)
        // The full path only names the file in a refusal: an open that succeeds builds none.
        func filePath() -> FilePath { path.appending(name) }
        let sharing = self.sharing
        let vetted = try Syscall.openVetted(
            name, in: descriptor, .writeOnly, options: [.append, .noFollow, .closeOnExec], path: filePath(), operation: "open for appending"
        ) { status throws(StorageError) in
            try Self.check(status, path: filePath(), sharing: sharing, forbiddenBits: sharing.forbiddenBits, maximumSize: maximumSize)
        }
        guard let vetted else { return nil }
        return AppendOnlyFile(descriptor: vetted.descriptor, directoryPath: path, name: name, size: Int(vetted.status.size))
    }
}
