import Foundation
import Keyring

/// Keyset commands for multi-process tests.
let keysetCommands: [String: FixtureCommand] = [:]
