import Foundation
import Keyring
import SealedStorage

/// A validated name for one kind of inter-process object shared by an application group,
/// built the way Apple platforms require so that code and names carry over between them.
///
/// | Kind | Apple format | Limit (bytes) | On Linux |
/// |---|---|---|---|
/// | ``Kind/service`` (Mach/XPC) | `<group>.<name>` | 127 (`name_t` is `char[128]` with its NUL) | used as is |
/// | ``Kind/semaphore`` | `<group>/<name>` | 31 (`PSEMNAMLEN`) | `/<group>_<name>` (see ``posixName``) |
/// | ``Kind/sharedMemory`` | `<group>/<name>` | 31 (`PSHMNAMLEN`) | `/<group>_<name>` |
/// | ``Kind/socket`` | `<container>/<name>` | 107 on Linux (`sun_path` is 108 with its NUL) | the path |
///
/// Linux allows far longer POSIX names (255 for shared memory, 251 for semaphores, whose file
/// is `sem.<name>` in `/dev/shm`), but GroupVault keeps Apple's 31: a name that works here then
/// works on macOS too, and the limit is what Apple developers already design for. The socket
/// limit is the platform's own, since the path contains the home directory, which differs
/// between machines anyway (macOS allows 103 bytes: `sun_path` is 104 there).
///
/// The `<name>` part is 1 or more ASCII letters, digits, `-`, `.` or `_`, not starting with
/// `.`. Building a name checks that the identity is entitled to the group.
public struct GroupIPCName: Sendable, Hashable, CustomStringConvertible {
    /// The kind of object a name is for; each has its own format and limit.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A Mach or XPC service name: `<group>.<name>`.
        case service
        /// A POSIX named semaphore: `<group>/<name>`.
        case semaphore
        /// A POSIX shared-memory object: `<group>/<name>`.
        case sharedMemory
        /// A Unix domain socket in the group container: `<container>/<name>`.
        case socket

        /// The most bytes the formatted name may have (without a terminating NUL).
        public var maximumLength: Int {
            switch self {
            case .service: 127
            case .semaphore, .sharedMemory: 31
            case .socket: GroupIPCName.socketPathCapacity - 1
            }
        }

        /// The Apple constant the limit comes from, for error messages.
        var limitName: String {
            switch self {
            case .service: "BOOTSTRAP_MAX_NAME_LEN (128, with the terminating NUL)"
            case .semaphore: "PSEMNAMLEN (31 on macOS, kept on Linux so names stay portable)"
            case .sharedMemory: "PSHMNAMLEN (31 on macOS, kept on Linux so names stay portable)"
            case .socket: "sun_path (\(GroupIPCName.socketPathCapacity) bytes on this platform, with the terminating NUL)"
            }
        }
    }

    /// `sizeof(sockaddr_un.sun_path)`: 108 on Linux, 104 on Apple platforms.
    public static var socketPathCapacity: Int {
        #if os(Linux)
        108
        #else
        104
        #endif
    }

    /// The kind of object.
    public let kind: Kind
    /// The application group.
    public let group: GroupIdentifier
    /// The caller's part of the name.
    public let name: String
    /// The formatted name: `<group>.<name>`, `<group>/<name>`, or the socket's path.
    public let rawValue: String

    /// Builds and checks a name of `kind` for `name` in `group`.
    ///
    /// - Throws: ``GroupMessagingError`` with ``GroupMessagingError/Code/notEntitled`` when the
    ///   keyring's identity is not in the application group; ``GroupMessagingError/Code/invalidName``
    ///   when `name` has a character outside the allowed set, or the result is too long (the
    ///   reason gives both lengths, the limit and how much to cut).
    public init(_ kind: Kind, _ name: String, in group: GroupIdentifier, keyring: Keyring) throws(GroupMessagingError) {
        guard keyring.identity.isEntitled(toApplicationGroup: group) else {
            throw Self.notEntitled(group, keyring: keyring)
        }
        if let problem = Self.problem(withName: name) {
            throw GroupMessagingError(.invalidName, "\(kind.rawValue) name \"\(UntrustedText.printable(name, limit: 80))\" is not valid: \(problem)")
        }
        let formatted: String
        switch kind {
        case .service: formatted = "\(group.rawValue).\(name)"
        case .semaphore, .sharedMemory: formatted = "\(group.rawValue)/\(name)"
        case .socket:
            formatted = keyring.home.root.appendingPathComponent("Group Containers", isDirectory: true)
                .appendingPathComponent(group.rawValue, isDirectory: true)
                .appendingPathComponent(name).path
        }
        let length = formatted.utf8.count
        guard length <= kind.maximumLength else {
            let excess = length - kind.maximumLength
            let advice = kind == .socket
                ? "shorten the name by \(excess) bytes, or use a keyring home with a shorter path (GROUPVAULT_HOME)"
                : "shorten the name by \(excess) bytes (the group identifier takes \(group.rawValue.utf8.count + 1) of them)"
            throw GroupMessagingError(.invalidName, "\(kind.rawValue) name \(formatted) is \(length) bytes; the limit is \(kind.maximumLength), from \(kind.limitName); \(advice)")
        }
        self.kind = kind
        self.group = group
        self.name = name
        self.rawValue = formatted
    }

    /// The name to give `sem_open`/`shm_open` on Linux: `/<group>_<name>`.
    ///
    /// Linux refuses a `/` after the leading one, so the Apple separator becomes `_`, which a
    /// group identifier cannot contain: the first `_` always ends the group, so two different
    /// (group, name) pairs never map to one object.
    public var posixName: String { "/\(group.rawValue)_\(name)" }

    /// The formatted name.
    public var description: String { rawValue }

    /// Why `name` is not a valid name part, or `nil`.
    static func problem(withName name: String) -> String? {
        let bytes = Array(name.utf8)
        if bytes.isEmpty { return "it is empty" }
        if bytes[0] == UInt8(ascii: ".") { return "it starts with '.'" }
        if let bad = bytes.first(where: { !isAllowed($0) }) {
            let shown = bad >= 0x20 && bad < 0x7F ? "'\(Character(Unicode.Scalar(bad)))'" : "byte 0x\(String(bad, radix: 16))"
            return "\(shown) is not allowed (use ASCII letters, digits, '-', '.' and '_')"
        }
        return nil
    }

    static func isAllowed(_ byte: UInt8) -> Bool {
        (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte) || (0x30...0x39).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
    }

    static func notEntitled(_ group: GroupIdentifier, keyring: Keyring) -> GroupMessagingError {
        GroupMessagingError(.notEntitled, "\(keyring.identity.subject) is not entitled to the application group \(group); add it to com.apple.security.application-groups in the entitlements file", remedy: .grantEntitlement(group: group.rawValue))
    }
}
