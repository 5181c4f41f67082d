import ArgumentParser
import Foundation
import Keyring
import SealedStorage
import Vault

extension RecordsCommand {
    /// `vaultcli records ledger`: the group's trust ledger row by row, with each stored tag, so
    /// someone who does not trust the readers can check rollback protection themselves
    /// (docs/FORMAT.md, "Trust ledger"; docs/CLI.md).
    struct Ledger: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ledger",
            abstract: "Print the group's trust ledger, one row per record, with each row's tag; exit 1 if a row fails authentication.",
            discussion: """
                Shows what readers check a record's sequence against: the confirmed sequence and the BLAKE2b-256 of its blob, \
                the sequence a writer announced, and the row's tag, next to the sequence of the record's file. \
                docs/FORMAT.md says how to recompute each tag with the master secret.
                """)
        @OptionGroup var process: ProcessOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The application group.") var group: String

        /// The `--json` shape of one row (docs/CLI.md). `fileSequence` is the sequence in the
        /// record file's header, absent when there is no file or its header is unreadable;
        /// `pending` and `pendingDigest` are absent when no write is in flight.
        struct Row: Encodable {
            var record: String
            var confirmed: UInt64
            var confirmedDigest: String
            var pending: UInt64?
            var pendingDigest: String?
            var tag: String
            var authentic: Bool
            var fileSequence: UInt64?
        }

        /// The `--json` shape.
        struct Report: Encodable {
            var group: String
            var rows: [Row]
        }

        func run() throws {
            let vault = try openVault(process, group)
            let ledgerRows = try vault.ledgerRows()
            var fileSequences: [String: UInt64] = [:]
            for listing in try vault.list() {
                if case .success(let header) = listing.header { fileSequences[listing.name] = header.sequence }
            }
            let rows = ledgerRows.map { row in
                Row(record: row.record, confirmed: row.confirmed, confirmedDigest: row.confirmedDigest,
                    pending: row.pending, pendingDigest: row.pendingDigest,
                    tag: Hex.lowercase(row.tag),
                    authentic: row.isAuthentic, fileSequence: fileSequences[row.record])
            }
            try output.emit(Report(group: group, rows: rows)) {
                guard !rows.isEmpty else {
                    print("no ledger rows (nothing was written to this group)")
                    return
                }
                var table = Table("RECORD", "CONFIRMED", "FILE", "PENDING", "CONFIRMED DIGEST", "TAG", "STATE")
                for row in rows {
                    table.add(row.record, String(row.confirmed), row.fileSequence.map(String.init) ?? "-",
                              row.pending.map(String.init) ?? "-", row.confirmedDigest.isEmpty ? "-" : row.confirmedDigest, row.tag,
                              row.authentic ? "authentic" : "fails authentication")
                }
                table.print()
            }
            if rows.contains(where: { !$0.authentic }) { throw ExitCode(ExitStatus.findings.rawValue) }
        }
    }
}
