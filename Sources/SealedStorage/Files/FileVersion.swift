import SystemPackage

/// What identifies one version of a file without reading it: device, inode, size, and the
/// modification and status-change times to the nanosecond.
///
/// Every file GroupVault keeps is replaced by rename (a new inode) or changed in place (a new ctime,
/// which the kernel sets and no one can set back), and `chmod`/`chown` change the ctime too; so
/// an equal version means the bytes, owner and mode are those seen when it was cached.
package struct FileVersion: Hashable, Sendable {
    private let device: UInt64
    private let inode: UInt64
    private let size: Int64
    private let modified: Int64
    private let changed: Int64

    /// The version `status` describes.
    package init(_ status: Stat) {
        device = UInt64(truncatingIfNeeded: status.deviceID.rawValue)
        inode = UInt64(truncatingIfNeeded: status.inode.rawValue)
        size = status.size
        modified = Int64(status.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(status.st_mtim.tv_nsec)
        changed = Int64(status.st_ctim.tv_sec) &* 1_000_000_000 &+ Int64(status.st_ctim.tv_nsec)
    }
}
