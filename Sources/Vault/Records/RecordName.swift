import SealedStorage

/// A validated record name: the file stem of `<name>.gvr`, its lock `<name>.lock`, and part of
/// the additional authenticated data of every blob sealed under it.
///
/// The rules (docs/FORMAT.md, "Record names"): 1 to ``maximumLength`` bytes of
/// `[A-Za-z0-9._-]`, not starting with `.`, and never containing `..`. The character set leaves
/// no room for path separators, NUL or control characters; the leading-dot rule keeps names
/// apart from the hidden temporary files of atomic replacement, and keeps `.` and `..` out.
package struct RecordName: Sendable, Hashable, CustomStringConvertible {
    /// The longest name accepted, in bytes. With the `.gvr` suffix and the temporary-file
    /// decoration it stays well inside `NAME_MAX` (255).
    package static let maximumLength = 128

    /// The name as given.
    package let rawValue: String

    /// Validates `string`.
    /// - Throws: ``VaultError/Code/invalidName`` saying which rule it breaks.
    package init(validating string: String) throws(VaultError) {
        if let problem = Self.problem(with: string) {
            throw VaultError(.invalidName, "record name \"\(Self.printable(string))\" \(problem); use 1 to \(Self.maximumLength) of A-Z a-z 0-9 . _ - without a leading '.' or '..'")
        }
        rawValue = string
    }

    package var description: String { rawValue }

    /// Why `string` is not a valid record name, or `nil` if it is.
    package static func problem(with string: String) -> String? {
        // Every read and write validates a name, and a first sync one per entry: a valid name
        // is recognised in one pass over the string's own bytes; only an invalid one is looked
        // at again, to say which rule it breaks.
        if string.utf8.withContiguousStorageIfAvailable(isValid) == true { return nil }
        let bytes = string.utf8
        let count = bytes.count
        if count == 0 { return "is empty" }
        if count > maximumLength { return "is \(count) bytes long, over the limit" }
        if let bad = bytes.first(where: { !isAllowed($0) }) {
            if bad == UInt8(ascii: "/") || bad == UInt8(ascii: "\\") { return "contains a path separator" }
            return bad >= 0x20 && bad < 0x7F
                ? "contains '\(Character(Unicode.Scalar(bad)))', which is not allowed"
                : "contains byte 0x\(String(bad, radix: 16)), which is not allowed"
        }
        if bytes.first == UInt8(ascii: ".") { return "starts with '.'" }
        // Every byte is ASCII by now, so two adjacent dot bytes are exactly "..".
        var previousIsDot = false
        for byte in bytes {
            let isDot = byte == UInt8(ascii: ".")
            if isDot && previousIsDot { return "contains '..'" }
            previousIsDot = isDot
        }
        return nil
    }

    /// Whether `bytes` follow every rule of ``problem(with:)``.
    private static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty, bytes.count <= maximumLength, bytes[0] != UInt8(ascii: ".") else { return false }
        // Without a branch per byte: the digits and letters of a hexadecimal name alternate at
        // random, which defeats a branch on each byte's kind (perf annotate put half of the
        // validation's samples on one such branch).
        return allowedBytes.withUnsafeBufferPointer { allowed in
            var valid: UInt8 = 1
            var previousIsDot: UInt8 = 0
            for byte in bytes {
                let isDot: UInt8 = byte == UInt8(ascii: ".") ? 1 : 0
                valid &= allowed[Int(byte)] & ~(isDot & previousIsDot)
                previousIsDot = isDot
            }
            return valid == 1
        }
    }

    /// ``isAllowed(_:)`` of every byte, 1 or 0.
    private static let allowedBytes: [UInt8] = (0...255).map { isAllowed(UInt8($0)) ? 1 : 0 }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte) || (0x30...0x39).contains(byte)
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    /// The name for an error message: a hostile name cannot forge log lines.
    private static func printable(_ string: String) -> String {
        UntrustedText.printable(string, limit: 64)
    }
}
