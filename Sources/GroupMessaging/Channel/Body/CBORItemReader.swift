import Foundation

/// Reads a whole CBOR body into a ``CBORItem``, refusing everything outside the channel's
/// subset (docs/MESSAGING.md, "Body formats"): indefinite lengths, tags, simple values other
/// than false, true and null (undefined included), heads not in their shortest form, map keys
/// that are not text strings or appear twice, text that is not UTF-8, nesting deeper than
/// ``maximumDepth``, and bytes after the item.
///
/// The whole body is checked before any type sees it, so what a receiver accepts does not
/// depend on which fields its type reads. A declared length is compared with the bytes left
/// before anything is allocated for it: an array of n items needs at least n bytes, a map of n
/// pairs 2n, so a head claiming more is refused without reserving room for it.
struct CBORItemReader {
    /// The most arrays and maps nested in one another (the body's top-level map is the first).
    /// Bounds the reader's and the decoder's recursion; real messages are a few levels deep.
    static let maximumDepth = 64

    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The one item `bytes` hold.
    static func read(_ bytes: UnsafeRawBufferPointer) throws(CBORReadError) -> CBORItem {
        var reader = CBORItemReader(bytes)
        let item = try reader.item(depth: 0)
        guard reader.offset == bytes.count else {
            throw CBORReadError("\(bytes.count - reader.offset) bytes after the body's item", at: reader.offset)
        }
        return item
    }

    private var remaining: Int { bytes.count - offset }

    private mutating func byte() throws(CBORReadError) -> UInt8 {
        guard offset < bytes.count else { throw CBORReadError("the body ends inside an item", at: offset) }
        defer { offset += 1 }
        return bytes[offset]
    }

    private mutating func bigEndian(_ count: Int) throws(CBORReadError) -> UInt64 {
        guard remaining >= count else { throw CBORReadError("the body ends inside an item's head", at: offset) }
        var value: UInt64 = 0
        for index in offset..<(offset + count) { value = value << 8 | UInt64(bytes[index]) }
        offset += count
        return value
    }

    /// The argument of a head of major type 0 to 6 whose low five bits are `info`, which must
    /// be in its shortest form.
    private mutating func argument(_ info: UInt8, start: Int) throws(CBORReadError) -> UInt64 {
        let (value, smallest): (UInt64, UInt64)
        switch info {
        case 0..<24: return UInt64(info)
        case 24: (value, smallest) = (try bigEndian(1), 24)
        case 25: (value, smallest) = (try bigEndian(2), 0x100)
        case 26: (value, smallest) = (try bigEndian(4), 0x1_0000)
        case 27: (value, smallest) = (try bigEndian(8), 0x1_0000_0000)
        case 31: throw CBORReadError("an indefinite length, which the subset does not allow", at: start)
        default: throw CBORReadError("reserved additional information \(info)", at: start)
        }
        guard value >= smallest else {
            throw CBORReadError("a head not in its shortest form (preferred serialization)", at: start)
        }
        return value
    }

    /// A declared length of bytes, checked against what is left.
    private func length(_ argument: UInt64, of what: String, start: Int) throws(CBORReadError) -> Int {
        guard argument <= UInt64(remaining) else {
            throw CBORReadError("\(what) of \(argument) bytes runs past the end of the body", at: start)
        }
        return Int(argument)
    }

    private mutating func item(depth: Int) throws(CBORReadError) -> CBORItem {
        let start = offset
        let initial = try byte()
        let major = initial >> 5
        let info = initial & 0x1F
        guard let kind = CBORHead.Major(rawValue: major), kind != .simple else {
            return CBORItem(value: try simple(info, start: start), offset: start)
        }
        if kind == .tag {
            throw CBORReadError("a tag (major type 6), which the subset does not allow", at: start)
        }
        let argument = try argument(info, start: start)
        switch kind {
        case .unsigned:
            return CBORItem(value: .unsigned(argument), offset: start)
        case .negative:
            return CBORItem(value: .negative(argument), offset: start)
        case .bytes:
            let count = try length(argument, of: "a byte string", start: start)
            defer { offset += count }
            return CBORItem(value: .bytes(Data(bytes[offset..<(offset + count)])), offset: start)
        case .text:
            return CBORItem(value: .text(try text(argument, start: start)), offset: start)
        case .array:
            // Each item takes at least one byte.
            let count = try length(argument, of: "an array", start: start)
            guard depth < Self.maximumDepth else { throw tooDeep(start) }
            var items: [CBORItem] = []
            items.reserveCapacity(count)
            for index in 0..<count {
                do {
                    items.append(try item(depth: depth + 1))
                } catch {
                    throw error.inside(BodyCodingKey(intValue: index))
                }
            }
            return CBORItem(value: .array(items), offset: start)
        case .map:
            // Each pair takes at least two bytes.
            guard argument <= UInt64(remaining / 2) else {
                throw CBORReadError("a map of \(argument) pairs runs past the end of the body", at: start)
            }
            guard depth < Self.maximumDepth else { throw tooDeep(start) }
            return CBORItem(value: .map(try map(count: Int(argument), depth: depth)), offset: start)
        case .tag, .simple:
            preconditionFailure("handled above")
        }
    }

    private func tooDeep(_ start: Int) -> CBORReadError {
        CBORReadError("arrays and maps nested deeper than \(Self.maximumDepth)", at: start)
    }

    private mutating func text(_ argument: UInt64, start: Int) throws(CBORReadError) -> String {
        let count = try length(argument, of: "a text string", start: start)
        let range = offset..<(offset + count)
        let text = UnsafeRawBufferPointer(rebasing: bytes[range]).withMemoryRebound(to: UInt8.self) {
            String(validating: $0, as: UTF8.self)
        }
        guard let text else { throw CBORReadError("a text string that is not UTF-8", at: start) }
        offset += count
        return text
    }

    private mutating func map(count: Int, depth: Int) throws(CBORReadError) -> CBORItem.Map {
        var map = CBORItem.Map()
        map.keys.reserveCapacity(count)
        map.values.reserveCapacity(count)
        map.positions.reserveCapacity(count)
        for _ in 0..<count {
            let keyStart = offset
            let initial = try byte()
            guard initial >> 5 == CBORHead.Major.text.rawValue else {
                throw CBORReadError("a map key that is not a text string", at: keyStart)
            }
            let key = try text(try argument(initial & 0x1F, start: keyStart), start: keyStart)
            guard map.positions[key] == nil else {
                throw CBORReadError("a map key that appears twice", at: keyStart)
            }
            let value: CBORItem
            do {
                value = try item(depth: depth + 1)
            } catch {
                throw error.inside(BodyCodingKey(stringValue: key))
            }
            map.positions[key] = map.keys.count
            map.keys.append(key)
            map.values.append(value)
        }
        return map
    }

    /// An item of major type 7 whose low five bits are `info`.
    private mutating func simple(_ info: UInt8, start: Int) throws(CBORReadError) -> CBORItem.Value {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: throw CBORReadError("undefined, which the subset does not allow", at: start)
        case 25: return .float(Self.widen(half: UInt16(try bigEndian(2))))
        case 26: return .float(Double(Float(bitPattern: UInt32(try bigEndian(4)))))
        case 27: return .float(Double(bitPattern: try bigEndian(8)))
        case 31: throw CBORReadError("a break outside an indefinite-length item, which the subset does not allow", at: start)
        case 28...30: throw CBORReadError("reserved additional information \(info)", at: start)
        default: throw CBORReadError("a simple value other than false, true and null", at: start)
        }
    }

    /// An IEEE 754 binary16 value as a `Double` (RFC 8949, Appendix D), exactly.
    static func widen(half: UInt16) -> Double {
        let exponent = Int(half >> 10) & 0x1F
        let mantissa = Double(half & 0x3FF)
        let magnitude: Double
        switch exponent {
        case 0: magnitude = mantissa * 0x1p-24
        case 31: magnitude = mantissa == 0 ? .infinity : .nan
        default: magnitude = (mantissa + 1024) * Double(sign: .plus, exponent: exponent - 25, significand: 1)
        }
        return half & 0x8000 != 0 ? -magnitude : magnitude
    }
}
