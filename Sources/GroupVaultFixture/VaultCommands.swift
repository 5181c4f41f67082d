import Foundation
import Vault

/// Vault commands for multi-process tests.
let vaultCommands: [String: FixtureCommand] = [:]
