import ArgumentParser
import Foundation
import Keyring
import Vault

/// `vaultcli records`: list, verify, reseal and watch a group's sealed records.
struct RecordsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "records",
        abstract: "List, verify, reseal and watch the sealed records of a group.",
        subcommands: [List.self, Verify.self, Reseal.self, Watch.self],
        defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List records with their headers, without decrypting.")
        @OptionGroup var process: ProcessOptions
        @Option(help: "The application group.") var group: String

        func run() throws {
            let listings = try openVault(process, group).list()
            if listings.isEmpty { print("no records") }
            for listing in listings {
                switch listing.header {
                case .success(let header):
                    print("\(listing.name)  \(listing.size) bytes  #\(header.sequence)  key #\(header.keyID)  schema \(header.schemaVersion)"
                        + "  issued \(header.issuedAt)" + (header.expiresAt.map { "  expires \($0)" } ?? "")
                        + (header.isTombstone ? "  (deleted)" : ""))
                case .failure(let error):
                    print("\(listing.name)  \(listing.size) bytes  unreadable header: \(error)")
                }
            }
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Authenticate every record and check its freshness; exit 1 if any is refused.",
            discussion: "Checks what any reader checks (key, tag, sequence, tombstone, expiry), without decoding payloads.")
        @OptionGroup var process: ProcessOptions
        @Option(help: "The application group.") var group: String

        func run() throws {
            let vault = try openVault(process, group)
            var refused = 0
            for listing in try vault.list() {
                do {
                    let payload = try vault.read(OpaquePayload.self, name: listing.name)
                    print("\(listing.name): ok (\(payload.byteCount) payload bytes)")
                } catch where error.code == .deleted {
                    print("\(listing.name): deleted (an authentic tombstone)")
                } catch {
                    refused += 1
                    print("\(listing.name): refused: \(error)")
                }
            }
            if refused > 0 { throw ExitCode(1) }
        }
    }

    struct Reseal: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rewrite records under the current primary key, so older keys can be retired.")
        @OptionGroup var process: ProcessOptions
        @Option(help: "The application group.") var group: String
        @Argument(help: "One record to reseal; omit to reseal every record.") var name: String?

        func run() throws {
            let vault = try openVault(process, group)
            if let name {
                try vault.reseal(name)
                print("resealed \(name)")
            } else {
                print("resealed \(try vault.resealAll()) records")
            }
        }
    }

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print each change to the group's records as it happens (inotify, no polling).")
        @OptionGroup var process: ProcessOptions
        @Option(help: "The application group.") var group: String
        @Argument(help: "Only this record.") var name: String?
        @Option(help: "Exit after this many changes.") var count: Int?

        func run() async throws {
            let changes = try openVault(process, group).changes(to: name)
            var seen = 0
            for await change in changes {
                print(change)
                seen += 1
                if let count, seen >= count { break }
            }
        }
    }
}

/// Opens the vault of `group` as the process identity.
private func openVault(_ process: ProcessOptions, _ group: String) throws -> Vault {
    try Vault(keyring: process.keyring(), group: parseGroup(group))
}

/// Any payload of any schema, kept only as its size: lets `verify` run every check a reader
/// runs (authentication, key, freshness) without knowing the record's type.
private struct OpaquePayload: VaultRecord {
    static let schemaVersion: UInt32 = 0
    static var supportedSchemaVersions: ClosedRange<UInt32> { 0...UInt32.max }
    var byteCount: Int

    static func decode(schemaVersion: UInt32, from payload: Data) throws -> OpaquePayload {
        OpaquePayload(byteCount: payload.count)
    }
}
