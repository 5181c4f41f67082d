import Foundation
import Vault

/// Vault commands for multi-process tests (owned by the Vault helper).
let vaultCommands: [String: FixtureCommand] = [:]
