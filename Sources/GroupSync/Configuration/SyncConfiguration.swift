#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PostgresNIO
import GroupSyncCore

/// Where a group's state is synced and how: the server's URL, TLS, the reconnect backoff, and how
/// often a running session verifies the server.
///
/// ```swift
/// let configuration = try SyncConfiguration.fromEnvironment()   // GROUPVAULT_SYNC_URL
///     ?? SyncConfiguration(url: try SyncServerURL("postgres://sync:secret@db.example.com/groupsync"))
/// ```
public struct SyncConfiguration: Sendable, CustomStringConvertible {
    /// The environment variable ``fromEnvironment(_:)`` reads.
    public static let environmentVariable = "GROUPVAULT_SYNC_URL"

    /// The server.
    public var url: SyncServerURL
    /// TLS to the server, through postgres-nio (NIOSSL). `nil`: from the URL's `sslmode` and
    /// `sslrootcert` (``SyncServerURL``): the system's trust roots or the file's, and the
    /// certificate and host name checked (the host name not under `verify-ca`). Give your own
    /// (`.require(try NIOSSLContext(configuration: ...))`) for client certificates.
    public var tls: PostgresConnection.Configuration.TLS?
    /// The first wait before reconnecting after a failure; doubled after each failure in a row.
    public var initialReconnectDelay: Duration = .milliseconds(50)
    /// The longest wait between reconnection attempts.
    public var maximumReconnectDelay: Duration = .seconds(5)
    /// How often a running session verifies the server, as `verifyWithServer()` does: every row
    /// of the store read by name and compared with what this machine accepted, so that a row
    /// the server dropped, or an older one it put back below every cursor, is found and written
    /// back without anyone running `vaultcli sync verify` (docs/SYNC.md, section 6, "Verifying
    /// the server"). Each wait is drawn between half this interval and the whole of it, from
    /// the session's start and then from each verification's start, so machines started
    /// together spread their reads of the store; the schedule is kept across reconnects, so a
    /// connection that keeps failing does not verify on each one. A day by default; `nil`, or
    /// an interval of zero or less, runs none (verify on demand only).
    public var verificationInterval: Duration? = .seconds(86_400)

    /// A configuration for the server at `url`.
    public init(url: SyncServerURL, tls: PostgresConnection.Configuration.TLS? = nil) {
        self.url = url
        self.tls = tls
    }

    /// The configuration `GROUPVAULT_SYNC_URL` names, or `nil` when it is unset or empty.
    /// - Throws: `SyncError.Code.configuration` when the URL is invalid (the password redacted).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(SyncError) -> SyncConfiguration? {
        guard let value = environment[environmentVariable], !value.isEmpty else { return nil }
        do {
            return SyncConfiguration(url: try SyncServerURL(value))
        } catch {
            throw SyncError(.configuration, "\(environmentVariable): \(error.reason)", underlyingError: error)
        }
    }

    /// The server, redacted.
    public var description: String { "SyncConfiguration(\(url.redacted))" }

    /// The TLS settings the URL asks for (used when ``tls`` is `nil`): NIOSSL's client defaults
    /// (full verification against the system's trust roots), the roots of `sslrootcert` instead
    /// when it is given, and no host-name check under `verify-ca`.
    var clientTLSConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let path = url.rootCertificatePath { configuration.trustRoots = .file(path) }
        if url.tlsMode == .verifyCA { configuration.certificateVerification = .noHostnameVerification }
        return configuration
    }

    /// postgres-nio's configuration for one connection.
    func connectionConfiguration() throws(SyncError) -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let socketPath = url.socketPath {
            configuration = .init(unixSocketPath: socketPath, username: url.user, password: url.password, database: url.database)
        } else {
            let tls: PostgresConnection.Configuration.TLS
            if let given = self.tls {
                tls = given
            } else if url.tlsMode == .disable {
                tls = .disable
            } else {
                do {
                    let context = try NIOSSLContext(configuration: clientTLSConfiguration)
                    tls = url.tlsMode == .prefer ? .prefer(context) : .require(context)
                } catch {
                    throw SyncError(.configuration, "TLS for \(url.redacted) could not be set up: \(error)", underlyingError: error)
                }
            }
            configuration = .init(host: url.host ?? "localhost", port: url.port, username: url.user, password: url.password, database: url.database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }
}
