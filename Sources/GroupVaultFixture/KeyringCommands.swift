import Foundation
import Keyring

/// A fixture command: takes its arguments, returns the exit status.
typealias FixtureCommand = @Sendable ([String]) -> Int32

/// Keyring commands for multi-process tests (owned by the Keyring helpers).
let keyringCommands: [String: FixtureCommand] = [:]
