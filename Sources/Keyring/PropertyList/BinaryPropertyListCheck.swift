/// A structural check of a binary property list (`bplist00`) made before Foundation's decoder
/// reads it: the trailer, the offset table, and every object's marker, length and references.
///
/// Why: Foundation's binary scanner trusts the structure and traps (killing the process) on
/// some malformed objects. The preferences-import fuzz target found one: a dictionary whose
/// count was written as a 16-byte integer, used as a dictionary key. So every object is checked
/// here, and the decoder only sees bytes whose structure is sound: counts written as 1- to
/// 8-byte integers, every object inside the object area, every reference to an object that
/// exists, every dictionary key a string. Types a ``PropertyListValue`` cannot hold (sets, UIDs,
/// integers wider than 64 bits) are refused here too; the decoder refused them anyway.
enum BinaryPropertyListCheck {
    /// Why the bytes are not a sound binary property list.
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    static func check(_ bytes: [UInt8]) throws(Malformed) {
        let trailerSize = 32
        guard bytes.count >= 8 + 1 + trailerSize, bytes.starts(with: "bplist00".utf8) else {
            throw Malformed(description: "is not a binary property list (version 00) of at least its header and trailer")
        }
        let trailer = bytes.count - trailerSize
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw Malformed(description: "has an offset or reference size outside 1...8 bytes")
        }
        let objectCount = unsigned(bytes, at: trailer + 8, size: 8)
        let topObject = unsigned(bytes, at: trailer + 16, size: 8)
        let table = unsigned(bytes, at: trailer + 24, size: 8)
        // Every object takes at least one byte before the table.
        guard objectCount >= 1, table >= 8, table <= UInt64(trailer), objectCount <= table - 8, topObject < objectCount,
              UInt64(trailer) - table == objectCount * UInt64(offsetSize) else {
            throw Malformed(description: "has a trailer that does not describe its object table")
        }
        let count = Int(objectCount)
        let end = Int(table)
        let offsets = (0..<count).map { Int(unsigned(bytes, at: end + $0 * offsetSize, size: offsetSize)) }
        guard offsets.allSatisfy({ (8..<end).contains($0) }) else {
            throw Malformed(description: "has an object offset outside its object area")
        }
        for offset in offsets {
            try checkObject(bytes, at: offset, end: end, referenceSize: referenceSize, offsets: offsets)
        }
        try checkDistinctKeys(bytes, end: end, referenceSize: referenceSize, offsets: offsets)
    }

    /// Refuses a dictionary that names one key twice, as the XML parser does: which of two
    /// contradictory values a decoder keeps is up to the decoder (Foundation keeps the last),
    /// so one file would mean different things to different readers, and a check that read
    /// the first value would not have checked what is used.
    ///
    /// Keys are compared as the decoded dictionary compares them: as Swift strings, so an
    /// ASCII and a UTF-16 object of one text, or a precomposed and a decomposed accent, are one
    /// key. Runs after every object was checked, so every key object is a string inside the
    /// object area. Each key object is decoded once (``KeyTexts``), whatever number of
    /// dictionaries refer to it, so a list cannot make this pass decode one long string per
    /// reference.
    private static func checkDistinctKeys(_ bytes: [UInt8], end: Int, referenceSize: Int, offsets: [Int]) throws(Malformed) {
        var texts = KeyTexts()
        for offset in Set(offsets) where bytes[offset] >> 4 == 0xD {
            // Sound: checkObject accepted this dictionary's count and references.
            guard let (count, header) = try? length(bytes, at: offset, info: Int(bytes[offset] & 0x0F), end: end) else { continue }
            var seen: Set<Int> = []
            for index in 0..<count {
                let object = Int(unsigned(bytes, at: offset + header + index * referenceSize, size: referenceSize))
                let (identity, text) = texts.identity(ofKeyAt: offsets[object], in: bytes, end: end)
                guard seen.insert(identity).inserted else {
                    throw Malformed(description: "is not a property list: binary dictionary at byte \(offset): the key \"\(GroupIdentifier.printable(text))\" appears twice in one dictionary")
                }
            }
        }
    }

    /// The text of every key object decoded so far, each distinct text numbered once, so that
    /// comparing two keys is comparing two numbers.
    private struct KeyTexts {
        private var byOffset: [Int: Int] = [:]
        private var byText: [String: Int] = [:]
        private var texts: [String] = []

        /// The number of the text of the string object at `offset`, and the text.
        mutating func identity(ofKeyAt offset: Int, in bytes: [UInt8], end: Int) -> (Int, String) {
            if let known = byOffset[offset] { return (known, texts[known]) }
            let text = BinaryPropertyListCheck.text(ofStringAt: offset, in: bytes, end: end)
            let identity = byText[text] ?? texts.count
            if identity == texts.count {
                texts.append(text)
                byText[text] = identity
            }
            byOffset[offset] = identity
            return (identity, text)
        }
    }

    /// The text of the checked ASCII (0x5) or UTF-16 big-endian (0x6) string object at
    /// `offset`. Bytes that are not ASCII, or unpaired surrogates, become U+FFFD: two keys
    /// that differ only there are refused as one, and the decoder refuses such strings anyway.
    private static func text(ofStringAt offset: Int, in bytes: [UInt8], end: Int) -> String {
        let marker = bytes[offset]
        guard let (count, header) = try? length(bytes, at: offset, info: Int(marker & 0x0F), end: end) else { return "" }
        let start = offset + header
        if marker >> 4 == 0x5 {
            return String(decoding: bytes[start..<(start + count)], as: Unicode.ASCII.self)
        }
        let units = (0..<count).map { UInt16(bytes[start + 2 * $0]) << 8 | UInt16(bytes[start + 2 * $0 + 1]) }
        return String(decoding: units, as: UTF16.self)
    }

    private static func checkObject(_ bytes: [UInt8], at offset: Int, end: Int, referenceSize: Int, offsets: [Int]) throws(Malformed) {
        let marker = bytes[offset]
        let info = Int(marker & 0x0F)
        let payload: Int
        var header = 1
        switch marker >> 4 {
        case 0x0:
            guard [0x0, 0x8, 0x9].contains(info) else { throw Malformed(description: "has an unknown marker 0x\(String(marker, radix: 16))") }
            return
        case 0x1:
            guard info <= 3 else { throw Malformed(description: "has an integer wider than 64 bits") }
            payload = 1 << info
        case 0x2:
            guard info == 2 || info == 3 else { throw Malformed(description: "has a real of an unknown size") }
            payload = 1 << info
        case 0x3:
            guard info == 3 else { throw Malformed(description: "has a date of an unknown size") }
            payload = 8
        case 0x4, 0x5:
            (payload, header) = try length(bytes, at: offset, info: info, end: end)
        case 0x6:
            let (count, size) = try length(bytes, at: offset, info: info, end: end)
            guard count <= (end - offset) / 2 else { throw Malformed(description: "has a string longer than the list") }
            (payload, header) = (2 * count, size)
        case 0xA, 0xD:
            let isDictionary = marker >> 4 == 0xD
            let (count, header) = try length(bytes, at: offset, info: info, end: end)
            guard count <= (end - offset) / (isDictionary ? 2 * referenceSize : referenceSize) else {
                throw Malformed(description: "has a collection longer than the list")
            }
            let references = (0..<(isDictionary ? 2 * count : count)).map { index in
                unsigned(bytes, at: offset + header + index * referenceSize, size: referenceSize)
            }
            guard offset + header + references.count * referenceSize <= end else {
                throw Malformed(description: "has a collection that runs past its object area")
            }
            guard references.allSatisfy({ $0 < UInt64(offsets.count) }) else {
                throw Malformed(description: "refers to an object that does not exist")
            }
            if isDictionary {
                // Keys first, then values: every key must be a string.
                for key in references.prefix(count) where ![0x5, 0x6].contains(bytes[offsets[Int(key)]] >> 4) {
                    throw Malformed(description: "has a dictionary key that is not a string")
                }
            }
            return
        default:
            throw Malformed(description: "has an object of a type a property list of settings cannot hold (marker 0x\(String(marker, radix: 16)))")
        }
        guard payload <= end - offset - header else {
            throw Malformed(description: "has an object that runs past its object area")
        }
    }

    /// The count of a string, data or collection object at `offset` and the size of its header:
    /// the marker's low nibble, or, when that is 0xF, a following 1- to 8-byte integer.
    private static func length(_ bytes: [UInt8], at offset: Int, info: Int, end: Int) throws(Malformed) -> (count: Int, header: Int) {
        guard info == 0xF else { return (info, 1) }
        guard offset + 1 < end, (0x10...0x13).contains(bytes[offset + 1]) else {
            throw Malformed(description: "has a count that is not written as a 1- to 8-byte integer")
        }
        let size = 1 << Int(bytes[offset + 1] & 0x0F)
        guard offset + 2 + size <= end else { throw Malformed(description: "has a count that runs past its object area") }
        let count = unsigned(bytes, at: offset + 2, size: size)
        guard count <= UInt64(end) else { throw Malformed(description: "has a count longer than the list") }
        return (Int(count), 2 + size)
    }

    /// The big-endian unsigned integer of `size` bytes at `offset` (the caller checked the range).
    private static func unsigned(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<(offset + size) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}
