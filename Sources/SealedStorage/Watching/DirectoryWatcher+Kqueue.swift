#if canImport(Darwin)
import Darwin
import Dispatch
import SystemPackage

/// The Apple-platform backend of ``DirectoryWatcher``.
typealias PlatformDirectoryWatchBackend = KqueueDirectoryWatch

/// A kqueue vnode source on the directory, plus a rescan on each notification.
///
/// kqueue says only "the directory changed", with no names, so each notification is turned
/// into events by comparing a fingerprint (inode, modification time, size) of every entry
/// with the previous one: a replaced file has a new inode, a removed one is missing.
/// A file rewritten in place without a rename changes no directory entry, so, unlike
/// inotify's IN_CLOSE_WRITE, it is not reported; GroupVault always replaces by rename.
package final class KqueueDirectoryWatch: DirectoryWatchBackend, @unchecked Sendable {
    // @unchecked: `state` is behind a lock; `snapshot` is touched only by the source's
    // handlers, which Dispatch serialises on `queue`; everything else is immutable.

    private enum State {
        case ready
        case started(any DispatchSourceFileSystemObject)
        case cancelled
    }

    private struct Fingerprint: Hashable {
        var inode: UInt64
        var modifiedSeconds: Int
        var modifiedNanoseconds: Int
        var size: Int64
    }

    private let descriptor: Int32
    private let directory: FilePath
    private let queue: DispatchQueue
    private let state = Locked(State.ready)
    private var snapshot: [String: Fingerprint] = [:]

    /// `entry` is not used: a vnode source reports that the directory changed, not which
    /// entry, so every write rescans, and ``DirectoryWatcher`` leaves other entries out.
    package init(directory: FilePath, entry: String?) throws(StorageError) {
        // O_EVTONLY: a descriptor for notifications only, which does not keep a volume busy.
        let opened: FileDescriptor
        do {
            opened = try Syscall.open(directory, .readOnly, options: [.eventOnly, .directory, .noFollow, .closeOnExec])
        } catch {
            throw StorageError(.system(error), operation: "watch directory", path: directory)
        }
        self.descriptor = opened.rawValue
        self.directory = directory
        self.queue = DispatchQueue(label: "GroupVault.DirectoryWatcher")
        // Taken now, so a change made after `events()` returns differs from it.
        self.snapshot = Self.fingerprints(of: directory, held: opened.rawValue)
    }

    package func start(delivering delivery: DirectoryWatcher.Delivery) {
        state.withLock { state in
            guard case .ready = state else { return }
            let source = DispatchSource.makeFileSystemObjectSource(
                fileDescriptor: descriptor, eventMask: [.write, .delete, .rename, .revoke], queue: queue)
            source.setEventHandler { [self] in
                if !source.data.isDisjoint(with: [.delete, .rename, .revoke]) {
                    delivery.event(.overflow)
                    delivery.end()
                    return
                }
                rescan(into: delivery)
            }
            source.setCancelHandler { [self] in Syscall.close(raw: descriptor) }
            state = .started(source)
            source.resume()
        }
    }

    package func cancel() {
        let source: (any DispatchSourceFileSystemObject)? = state.withLock { state in
            defer { state = .cancelled }
            switch state {
            case .ready:
                Syscall.close(raw: descriptor)
                return nil
            case .started(let source):
                return source
            case .cancelled:
                return nil
            }
        }
        source?.cancel()
    }

    /// Compares the directory with the last snapshot and delivers the differences; runs on `queue`.
    private func rescan(into delivery: DirectoryWatcher.Delivery) {
        let current = Self.fingerprints(of: directory, held: descriptor)
        for (name, fingerprint) in current.sorted(by: { $0.key < $1.key }) where snapshot[name] != fingerprint {
            delivery.event(DirectoryWatcher.Event(name: name, kind: .written))
        }
        for name in snapshot.keys.sorted() where current[name] == nil {
            delivery.event(DirectoryWatcher.Event(name: name, kind: .removed))
        }
        snapshot = current
    }

    /// The regular files of `directory` and their fingerprints (symbolic links not followed),
    /// each examined relative to `held`, the watched directory's descriptor, not by path.
    private static func fingerprints(of directory: FilePath, held: Int32) -> [String: Fingerprint] {
        var result: [String: Fingerprint] = [:]
        // Best effort: a rescan that cannot list or stat an entry reports it as unchanged or
        // removed, and the consumer reads the records themselves through the checked layer.
        for name in DirectoryListing.names(in: directory) {
            guard let status = try? Syscall.statusIfPresent(name, in: FileDescriptor(rawValue: held)), status.type == .regular else { continue }
            result[name] = Fingerprint(
                inode: UInt64(status.rawValue.st_ino),
                modifiedSeconds: Int(status.rawValue.st_mtimespec.tv_sec),
                modifiedNanoseconds: Int(status.rawValue.st_mtimespec.tv_nsec),
                size: Int64(status.rawValue.st_size))
        }
        return result
    }
}
#endif
