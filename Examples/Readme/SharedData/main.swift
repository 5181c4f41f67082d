import Foundation
import GRDB
import GroupDatabase    // product "GroupDatabase" (GRDB)
import Keyring
import SharedDefaults   // product "SharedDefaults"

let defaults = SharedDefaults(suiteName: "group.com.example.notes")   // nil when not entitled
try defaults?.set("dark", forKey: "theme")                            // throws instead of trapping
let theme = defaults?.string(forKey: "theme") ?? "light"              // a dictionary lookup once warm
let preferences = SharedDefaults.applePreferencesURL(suiteName: "group.com.example.notes")
print(try defaults?.importPreferences(from: preferences, dryRun: true) as Any)   // what would move

let keyring = try Keyring.fromEnvironment()
let group = try GroupIdentifier(validating: "group.com.example.notes")
var migrator = DatabaseMigrator()
migrator.registerMigration("create notes") { db in
    try db.create(table: "note") { table in
        table.autoIncrementedPrimaryKey("id")
        table.column("text", .text).notNull()
    }
}
let database = try GroupDatabase(name: "notes", group: group, keyring: keyring, migrator: migrator)
try database.pool.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES (?)", arguments: ["hi"]) }

for await change in try defaults!.changes(forKey: "theme") { print(change) }   // any process
for await _ in try database.changes() { print("reload") }                     // commits of any process
