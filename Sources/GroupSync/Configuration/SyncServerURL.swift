#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage
import GroupSyncCore

/// A PostgreSQL connection URL, `postgres://user:password@host:port/database?host=/socket/dir&sslmode=require`,
/// parsed without ever showing its password.
///
/// `host` in the query (libpq's convention) names a directory holding the server's Unix socket
/// (`.s.PGSQL.<port>`), and wins over the authority's host. `sslmode` is `disable` (the
/// default on a Unix socket, where TLS is never used, as with libpq), `prefer`, `require` (the
/// default over TCP), `verify-full` (the same as `require`: the certificate and the host name
/// are checked) or `verify-ca` (the certificate only). `sslrootcert`, an absolute path to a PEM
/// file, trusts the certificate authorities it holds instead of the system's. A
/// ``SyncConfiguration/tls`` given in code (client certificates, say) replaces all of these.
public struct SyncServerURL: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// How TLS is asked for (libpq's `sslmode` names).
    public enum TLSMode: String, Sendable, Hashable {
        /// Plain connection (acceptable on a Unix socket or loopback only).
        case disable
        /// TLS when the server offers it, and a plain connection when it does not: a server, or
        /// anyone between, that declines TLS sees the password. For loopback and trusted networks.
        case prefer
        /// TLS or no connection, with the server's certificate and host name checked (stricter
        /// than libpq's `require`, which checks neither).
        case require
        /// TLS, with the certificate's chain checked and not the host name.
        case verifyCA = "verify-ca"
        /// TLS, with the certificate and the host name checked: the same as ``require``.
        case verifyFull = "verify-full"
    }

    /// The user name.
    public let user: String
    /// The password, never shown by ``description``.
    let password: String?
    /// The TCP host, when not connecting through a socket directory.
    public let host: String?
    /// The TCP port, and the number in the socket file's name.
    public let port: Int
    /// The directory holding the Unix socket, when connecting through one.
    public let socketDirectory: String?
    /// The database.
    public let database: String
    /// How TLS is asked for.
    public let tlsMode: TLSMode
    /// A PEM file of the certificate authorities to trust instead of the system's (`sslrootcert`).
    public let rootCertificatePath: String?

    /// Parses `string`.
    /// - Throws: `SyncError.Code.configuration` naming what is wrong, with the URL redacted.
    public init(_ string: String) throws(SyncError) {
        func refuse(_ problem: String) -> SyncError {
            SyncError(.configuration, "the sync server URL \(Self.redact(string)) \(problem); write postgres://user:password@host:5432/database (or ?host=/socket/directory)")
        }
        guard let components = URLComponents(string: string) else { throw refuse("is not a URL") }
        guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw refuse("does not start with postgres://")
        }
        guard let user = components.user, !user.isEmpty else { throw refuse("names no user") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw refuse("names no database (the path)") }
        let items = components.queryItems ?? []
        // A query item with no `=` is not a parameter, and might be anything: it is not named.
        guard items.allSatisfy({ $0.value != nil }) else { throw refuse("has a query item without a value; parameters are name=value") }
        let query = Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        for name in query.keys where !Self.parameters.contains(name) {
            let hint = name == "password" ? "; give the password in the user part, postgres://user:password@host/database" : ""
            throw refuse("has the parameter \(Self.printable(name)), which GroupSync does not know (host, sslmode, sslrootcert)\(hint)")
        }
        let socketDirectory = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        if let host = query["host"], socketDirectory == nil { throw refuse("has host=\(Self.printable(host)), which is not an absolute socket directory") }
        let host = components.host.flatMap { $0.isEmpty ? nil : $0 }
        guard socketDirectory != nil || host != nil else { throw refuse("names no host") }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw refuse("has port \(port), outside 1...65535") }
        let tls: TLSMode
        if let mode = query["sslmode"] {
            guard let parsed = TLSMode(rawValue: mode) else {
                throw refuse("has sslmode=\(Self.printable(mode)); use disable, prefer, require, verify-ca or verify-full")
            }
            tls = parsed
        } else {
            tls = socketDirectory != nil ? .disable : .require
        }
        let rootCertificatePath = query["sslrootcert"]
        if let path = rootCertificatePath {
            guard path.hasPrefix("/") else { throw refuse("has sslrootcert=\(Self.printable(path)), which is not an absolute path") }
            guard socketDirectory == nil, tls != .disable else {
                throw refuse("has sslrootcert but no TLS to use it with (a socket directory, or sslmode=disable)")
            }
        }
        self.user = user
        self.password = components.password
        self.host = socketDirectory == nil ? host : nil
        self.port = port
        self.socketDirectory = socketDirectory
        self.database = database
        self.tlsMode = tls
        self.rootCertificatePath = rootCertificatePath
    }

    /// The query parameters GroupSync reads; any other is refused rather than ignored.
    private static let parameters: Set<String> = ["host", "sslmode", "sslrootcert"]

    /// The Unix socket's path, when connecting through a socket directory.
    public var socketPath: String? { socketDirectory.map { "\($0)/.s.PGSQL.\(port)" } }

    /// Whether the URL carries a password (shown as `***`, never itself).
    public var hasPassword: Bool { password != nil }

    /// The URL with its password replaced by `***`: the only form GroupSync ever prints.
    public var redacted: String {
        let credentials = user + (password == nil ? "" : ":***")
        let location = socketDirectory.map { "localhost/\(database)?host=\($0)" } ?? "\(host ?? ""):\(port)/\(database)"
        let query = (socketDirectory == nil ? "?sslmode=\(tlsMode.rawValue)" : "&sslmode=\(tlsMode.rawValue)")
            + (rootCertificatePath.map { "&sslrootcert=\($0)" } ?? "")
        return UntrustedText.printable("postgres://\(credentials)@\(location)\(query)", limit: 400)
    }

    /// ``redacted``.
    public var description: String { redacted }
    /// ``redacted``: the password stays hidden in debug output too.
    public var debugDescription: String { redacted }
    /// Every part but the password, so `dump` and a debugger's view of the value do not show it.
    public var customMirror: Mirror {
        Mirror(self, children: ["user": user, "hasPassword": hasPassword, "host": host as Any, "port": port,
                                "socketDirectory": socketDirectory as Any, "database": database, "tlsMode": tlsMode,
                                "rootCertificatePath": rootCertificatePath as Any],
               displayStyle: .struct)
    }

    /// A string that names the same server for equality, without the password (what the
    /// account-change rule compares).
    var serverIdentity: String { "\(user)@\(socketDirectory ?? host ?? ""):\(port)/\(database)" }

    /// `string` as a refusal shows it: the scheme, the user, the host and path, and the values
    /// of `host`, `sslmode` and `sslrootcert`; a password in the user part, every other query value and a
    /// fragment are `***`. A string without `://` is not shown at all, since where its user
    /// part ends cannot be told (`postgres:user:secret@host/db` would print the secret).
    static func redact(_ string: String) -> String {
        guard let schemeEnd = string.range(of: "://") else {
            return "(not shown: it has no \"://\", so a password in it could not be told apart)"
        }
        var shown = String(string[..<schemeEnd.upperBound])
        var location = string[schemeEnd.upperBound...]
        // The last `@`: a password may hold an `@` of its own, and showing too little is safe.
        if let at = location.lastIndex(of: "@") {
            let userInfo = location[..<at]
            shown += (userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                + (userInfo.contains(":") ? ":***" : "") + "@"
            location = location[location.index(after: at)...]
        }
        var fragment = false
        if let hash = location.firstIndex(of: "#") {
            location = location[..<hash]
            fragment = true
        }
        if let question = location.firstIndex(of: "?") {
            let items = location[location.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
            shown += location[...question] + items.map { item -> String in
                guard let equals = item.firstIndex(of: "=") else { return "***" }
                let name = item[..<equals]
                return parameters.contains(String(name)) ? String(item) : name + "=***"
            }.joined(separator: "&")
        } else {
            shown += location
        }
        return printable(shown + (fragment ? "#***" : ""))
    }

    /// Text from the environment, escaped (`UntrustedText`) and quoted.
    static func printable(_ string: String) -> String {
        "\"" + UntrustedText.printable(string, limit: 200) + "\""
    }
}
