#if os(Linux)
import SealedStorage

extension FuzzTarget {
    /// The inotify record parser of `DirectoryWatcher` (`InotifyDirectoryWatch.parse`) on
    /// arbitrary buffers, compared with a reading of `struct inotify_event` from inotify(7):
    /// the same events in the same order, and never a read past the buffer.
    static let inotifyEvents = FuzzTarget(
        name: "inotify-events",
        summary: "InotifyDirectoryWatch.parse agrees with inotify(7) on any buffer",
        run: { input throws(FuzzFinding) in
            let parsed = input.withUnsafeBytes { InotifyDirectoryWatch.parse($0) }
            let expected = InotifyModel.parse(input)
            try expect(parsed.events == expected.events && parsed.directoryGone == expected.directoryGone, "parse gave \(parsed.events) (directory gone: \(parsed.directoryGone)), inotify(7) says \(expected.events) (directory gone: \(expected.directoryGone))")
            return parsed.events.isEmpty && !parsed.directoryGone ? .refused : .accepted
        },
        seeds: {
            let record = InotifyModel.record
            return [
                "valid-moved-to": record(1, InotifyModel.movedTo, "auth-state.gvr"),
                "valid-close-write-then-delete": record(1, InotifyModel.closeWrite, "a.gvr") + record(1, InotifyModel.delete, "b.gvr"),
                "valid-overflow": record(-1, InotifyModel.queueOverflow, ""),
                "valid-directory-deleted": record(1, InotifyModel.deleteSelf, "") + record(1, InotifyModel.ignored, ""),
                "subdirectory": record(1, InotifyModel.movedTo | InotifyModel.isDirectory, "sub"),
                "truncated-name": Array(record(1, InotifyModel.movedFrom, "long-record-name.gvr").dropLast(3)),
                "length-beyond-buffer": [1, 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x61],
            ]
        })
}

/// `struct inotify_event` as inotify(7) describes it, read independently of the watcher:
/// `int wd; uint32_t mask; uint32_t cookie; uint32_t len; char name[len]` in host byte order,
/// the name NUL-padded.
enum InotifyModel {
    // Mask bits from <sys/inotify.h>.
    static let closeWrite: UInt32 = 0x0000_0008
    static let movedFrom: UInt32 = 0x0000_0040
    static let movedTo: UInt32 = 0x0000_0080
    static let delete: UInt32 = 0x0000_0200
    static let deleteSelf: UInt32 = 0x0000_0400
    static let moveSelf: UInt32 = 0x0000_0800
    static let unmount: UInt32 = 0x0000_2000
    static let queueOverflow: UInt32 = 0x0000_4000
    static let ignored: UInt32 = 0x0000_8000
    static let isDirectory: UInt32 = 0x4000_0000

    /// The events the watcher documents for `buffer`: entries written (moved in, or closed
    /// after writing) and removed (deleted, moved out), an overflow for a lost queue, and
    /// "directory gone" when the watched directory itself goes; subdirectories and nameless
    /// records are skipped, and a record that does not fit ends the buffer.
    static func parse(_ buffer: [UInt8]) -> (events: [DirectoryWatcher.Event], directoryGone: Bool) {
        // Host byte order: every Linux platform Swift runs on is little-endian.
        func word(_ offset: Int) -> UInt32 {
            buffer[offset..<(offset + 4)].reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }
        var result: (events: [DirectoryWatcher.Event], directoryGone: Bool) = ([], false)
        var offset = 0
        while buffer.count - offset >= 16 {
            let mask = word(offset + 4)
            let length = Int(word(offset + 12))
            guard length <= buffer.count - offset - 16 else { break }
            let name = buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
            offset += 16 + length
            if mask & queueOverflow != 0 {
                result.events.append(.overflow)
            } else if mask & (deleteSelf | moveSelf | unmount | ignored) != 0 {
                result.directoryGone = true
            } else if mask & isDirectory != 0 || name.isEmpty {
                continue
            } else if mask & (movedTo | closeWrite) != 0 {
                result.events.append(.init(name: String(decoding: name, as: UTF8.self), kind: .written))
            } else if mask & (delete | movedFrom) != 0 {
                result.events.append(.init(name: String(decoding: name, as: UTF8.self), kind: .removed))
            }
        }
        return result
    }

    /// One record as the kernel writes it: the name NUL-terminated and padded to 16 bytes.
    static func record(_ watch: Int32, _ mask: UInt32, _ name: String) -> [UInt8] {
        var nameBytes = Array(name.utf8)
        if !nameBytes.isEmpty {
            nameBytes.append(0)
            nameBytes += [UInt8](repeating: 0, count: (16 - nameBytes.count % 16) % 16)
        }
        func little(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        return little(UInt32(bitPattern: watch)) + little(mask) + little(0) + little(UInt32(nameBytes.count)) + nameBytes
    }
}
#endif
