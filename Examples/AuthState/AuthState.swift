import Foundation
import Vault

/// What the app shares with its widget: whether someone is signed in, whom to greet, and until
/// when. Never the token itself: a widget needs to know *that* a session exists, not to use it.
public struct AuthState: VaultRecord, Equatable {
    /// Version 1 of this shape.
    public static let schemaVersion: UInt32 = 1

    /// Whether a user is signed in.
    public var isAuthenticated: Bool
    /// The name to show, present exactly when signed in.
    public var displayName: String?
    /// When the session's token expires.
    public var tokenExpiry: Date?
    /// A random id drawn at sign-in, not derived from the token (nothing of the token leaves
    /// the keychain): lets the widget notice a new session.
    public var sessionID: String?

    /// A state.
    public init(isAuthenticated: Bool, displayName: String? = nil, tokenExpiry: Date? = nil, sessionID: String? = nil) {
        self.isAuthenticated = isAuthenticated
        self.displayName = displayName
        self.tokenExpiry = tokenExpiry
        self.sessionID = sessionID
    }

    /// Validated as strictly as data from the network: a signed-in state names its user.
    public func validate() throws {
        if isAuthenticated, displayName?.isEmpty ?? true {
            throw AuthStateProblem("a signed-in state has no display name")
        }
    }

    /// The record name both processes use.
    public static let recordName = "auth-state"
}

/// Why an ``AuthState`` was refused by its own validation.
public struct AuthStateProblem: Error, CustomStringConvertible {
    /// What is wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}
