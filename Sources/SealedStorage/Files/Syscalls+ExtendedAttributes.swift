import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Syscall {
    private typealias AttributeSize = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int

    /// libc's `fgetxattr`, looked up once: `<sys/xattr.h>` is not part of the Glibc module, so
    /// Swift cannot call it by name. `nil` where libc has none, and then every question fails
    /// (ENOSYS), which refuses a shared directory rather than trusting it unseen. macOS's
    /// `fgetxattr` takes two more arguments and has no POSIX ACL attributes: not looked up.
    private static let attributeSize: AttributeSize? = {
        #if os(Linux)
        dlsym(nil, "fgetxattr").map { unsafeBitCast($0, to: AttributeSize.self) }
        #else
        nil
        #endif
    }()

    /// The extended attribute holding a file's POSIX access ACL on Linux.
    package static let accessControlListAttribute = "system.posix_acl_access"
    /// The extended attribute holding a directory's default ACL, inherited by what is created in it.
    package static let defaultAccessControlListAttribute = "system.posix_acl_default"

    /// Whether the file open as `descriptor` has the extended attribute `name`: `fgetxattr(2)`
    /// asking only for its size. `false` when it has none (`ENODATA`) or its file system keeps
    /// no such attributes (`ENOTSUP`); any other failure is thrown. `descriptor` must not be an
    /// `O_PATH` descriptor (`EBADF`).
    package static func hasExtendedAttribute(_ name: String, on descriptor: FileDescriptor) throws(Errno) -> Bool {
        try FaultInjection.check(call: .readExtendedAttribute)
        guard let attributeSize else { throw .noFunction }
        while true {
            let size = attributeSize(descriptor.rawValue, name, nil, 0)
            if size >= 0 { return true }
            let code = errno
            if code == EINTR { continue }
            if code == ENODATA || code == ENOTSUP || code == EOPNOTSUPP { return false }
            throw Errno(rawValue: code)
        }
    }
}

extension Syscall {
    /// The effective group id of this process: the group its new files get where no setgid
    /// directory decides (the home's group rule, ``SafeDirectory/checkOwnerAndMode(_:path:sharing:operation:forbiddenBits:)``).
    package static var effectiveGroupID: UInt32 { UInt32(getegid()) }
}
