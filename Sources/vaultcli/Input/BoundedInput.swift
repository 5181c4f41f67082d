import SealedStorage
import SystemPackage

/// Reads a secret or key from standard input or a file the user named, never more than a limit.
///
/// Why bounded: reading to the end first and checking the size afterwards lets `yes | vaultcli
/// items add` (or `--secret-file /dev/zero`) grow the buffer until memory runs out and the
/// process traps. At most `limit + 1` bytes are read: one byte more than allowed proves the
/// input is too large without reading the rest, and the refusal names the limit.
enum BoundedInput {
    /// The whole of standard input, at most `limit` bytes; with `strippingLineEnd`, one
    /// trailing `\n` (or `\r\n`) is removed first and does not count.
    /// - Throws: ``CLIError`` (refused) naming `what` and the limit when there is more.
    static func standardInput(limit: Int, what: String, strippingLineEnd: Bool = false) throws -> [UInt8] {
        let source = "standard input"
        var bytes = try read(.standardInput, limit: strippingLineEnd ? limit + 2 : limit, source: source, what: what, shownLimit: limit)
        if strippingLineEnd {
            if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        }
        guard bytes.count <= limit else {
            wipe(&bytes)
            throw refusal(source, limit: limit, what: what)
        }
        return bytes
    }

    /// The whole of the file at `path` (a path the user gave, so a symbolic link is followed
    /// as the shell would), at most `limit` bytes. FIFOs and devices are read like files:
    /// `--secret-file <(pass show x)` works, `--secret-file /dev/zero` is refused at the limit.
    /// - Throws: ``CLIError`` (usage) naming `flag` when it cannot be opened or read, (refused)
    ///   when it holds more than `limit` bytes.
    static func file(_ path: String, limit: Int, flag: String, what: String) throws -> [UInt8] {
        let source = "\(flag) \(Terminal.escaped(path))"
        let descriptor: FileDescriptor
        do {
            descriptor = try Syscall.open(FilePath(path), .readOnly, options: [.closeOnExec])
        } catch {
            throw CLIError.usage("\(source): cannot be opened (\(error))")
        }
        defer { Syscall.close(descriptor) }
        return try read(descriptor, limit: limit, source: source, what: what, shownLimit: limit)
    }

    /// At most `limit` bytes of `descriptor`, or a refusal naming `shownLimit` (the caller's
    /// limit, which a line end it strips may exceed by two bytes).
    private static func read(_ descriptor: FileDescriptor, limit: Int, source: String, what: String, shownLimit: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        // One allocation: appending never moves (and leaves behind) a copy of the secret.
        bytes.reserveCapacity(limit + 1)
        var chunk = [UInt8](repeating: 0, count: min(limit + 1, 64 * 1024))
        defer { for index in chunk.indices { chunk[index] = 0 } }
        while bytes.count <= limit {
            let wanted = min(chunk.count, limit + 1 - bytes.count)
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { buffer throws(Errno) in
                    try Syscall.read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]))
                }
            } catch {
                wipe(&bytes)
                throw CLIError.usage("\(source): cannot be read (\(error))")
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
        }
        wipe(&bytes)
        throw refusal(source, limit: shownLimit, what: what)
    }

    /// The refusal of an input larger than `limit` (exit status 5, as the keyring's own
    /// refusal of a secret that is too large).
    private static func refusal(_ source: String, limit: Int, what: String) -> CLIError {
        CLIError(.refused, "\(source) holds more than \(limit) bytes, the limit for \(what); nothing was stored, and the rest of the input was not read")
    }

    /// Overwrites a buffer that held (part of) a secret before it is released.
    private static func wipe(_ bytes: inout [UInt8]) {
        for index in bytes.indices { bytes[index] = 0 }
    }
}
