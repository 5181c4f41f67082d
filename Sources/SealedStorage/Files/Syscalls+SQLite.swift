import CSQLite
import SystemPackage

extension Syscall {
    /// `sqlite3_open_v2(3)` of `path` with `flags`: SQLite's result code and, unless it ran out
    /// of memory, the connection (to be closed by the caller, also when the code is an error).
    ///
    /// SQLite has no descriptor-based open, so this is the layer's one open by path of a file in
    /// a shared directory. It is made safe around the call, not inside it: the caller passes
    /// `SQLITE_OPEN_NOFOLLOW`, vets the file relative to its held directory first
    /// (``DatabaseFile``), and proves before the first statement that the descriptor SQLite
    /// opened is that file (``DatabaseFile/checkOpened(descriptor:path:sharing:)``). It lives here so
    /// that SQLite's open is written once, in the layer. Calling it from outside the layer is a
    /// by-path open all the same, so the source scan lists each caller as a reviewed exception
    /// (`FileLayerScanTests.allowedCalls`), as it does GRDB's own open by path in GroupDatabase,
    /// which cannot move here without making SealedStorage depend on GRDB.
    package static func openSQLiteDatabase(_ path: String, flags: Int32) throws(Errno) -> (result: Int32, connection: OpaquePointer?) {
        try FaultInjection.check(call: .openDatabase)
        var connection: OpaquePointer?
        let result = sqlite3_open_v2(path, &connection, flags, nil)
        return (result, connection)
    }
}
