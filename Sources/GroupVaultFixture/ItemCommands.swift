import Foundation
import Keyring

/// Item commands for multi-process tests.
let itemCommands: [String: FixtureCommand] = [:]
