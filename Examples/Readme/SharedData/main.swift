import Foundation
import GRDB
import GroupDatabase    // product "GroupDatabase" (GRDB)
import Keyring
import SharedDefaults   // product "SharedDefaults"

// SharedDefaults(suiteName:) is Apple's optional initializer; this one says why it fails.
let defaults = try SharedDefaults(validatingSuiteName: "group.com.example.notes")
try defaults.set("dark", forKey: "theme")                    // throws instead of trapping
let theme = defaults.string(forKey: "theme") ?? "light"      // a dictionary lookup once warm
let preferences = SharedDefaults.applePreferencesURL(suiteName: "group.com.example.notes")
print(try defaults.importPreferences(from: preferences, dryRun: true))   // or "nothing to import: ..."

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

let themeChanges = try defaults.changes(forKey: "theme")     // writes of any process, this one too
try defaults.set(theme == "dark" ? "light" : "dark", forKey: "theme")
for await change in themeChanges { print(change); break }
let commits = try database.changes()                         // commits of any process
try database.pool.write { db in try db.execute(sql: "DELETE FROM note") }
for await _ in commits { print("reload"); break }
