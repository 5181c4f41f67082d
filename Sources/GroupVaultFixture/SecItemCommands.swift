import Foundation
import Keyring

/// SecItem commands for multi-process tests.
let secItemCommands: [String: FixtureCommand] = [:]
