import ArgumentParser
import Foundation
import Logging
import SealedStorage

/// `--verbose` / `--log-level`: the library's diagnostics (refusals, lock waits, lost change
/// events; docs/ARCHITECTURE.md, "Diagnostics") as lines on standard error,
/// `vaultcli[debug]: <message> key=value ...`, each escaped: metadata names groups and records,
/// which come from disk and from arguments.
///
/// A handler of our own rather than swift-log's `StreamLogHandler`, which prints names raw.
struct DiagnosticsLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let fields = merged.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        Terminal.writeError("vaultcli[\(event.level)]: \(UntrustedText.printable("\(event.message)\(fields)", limit: 8192))\n")
    }
}

/// The levels `--log-level` accepts: swift-log's, by name.
enum DiagnosticsLevel: String, CaseIterable, ExpressibleByArgument {
    case trace, debug, info, notice, warning, error, critical

    var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .info }
}
