#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage

/// The binary body of an item row: what new rows of passwords seal, in place of their JSON
/// (docs/STORAGE.md, "Items").
///
/// Why: a warm lookup opens the row it finds, and with a JSON body it decrypted, scanned and
/// parsed about 1.6 KB for a 1 KiB secret, the secret as base64 (about a third of a lookup's
/// instructions). This body holds the same fields with their bytes as they are: the secret
/// raw, numbers fixed-size. Rows already written keep their JSON, read as before
/// (``ItemRowJSON``); items with key or certificate attributes, whose nested objects have no
/// field here, are still written as JSON.
///
/// Layout: the byte `0x00` (a JSON text never starts with it, so a row says which body it
/// holds), the body's version `0x01`, then each present field as its tag (one byte), its
/// length (four bytes, big-endian) and its value, in ascending order of tag, none twice. Text
/// is UTF-8; a Boolean one byte, `0` or `1`; `accessControl` and `port` eight bytes, big-endian
/// (unsigned and two's complement); a date the eight bytes of its `Double` seconds since 1970,
/// big-endian; a four-character code given as a number four bytes, big-endian. The body is read
/// only after the row authenticated, but it is still read strictly: an unknown tag, a tag out
/// of order, a length that does not fit the field or the body, a Boolean other than `0` or `1`,
/// text that is not UTF-8, a missing required field or trailing bytes make it no item.
enum ItemRowBinary {
    /// The body's first byte.
    static let marker: UInt8 = 0x00
    /// The body's layout version, its second byte.
    static let version: UInt8 = 0x01

    /// The fields, by tag. Required: `itemClass`, `isSynchronizable`, `accessibility`,
    /// `accessControl`, `secret`.
    enum Tag: UInt8, CaseIterable {
        case itemClass = 1, service, account, accountEncoding, accessGroup, label, itemDescription, comment
        case generic, isSynchronizable, accessibility, accessControl, server, `protocol`, port, path
        case authenticationType, securityDomain, creationDate, modificationDate, persistentReference, secret
        case creatorNumber, creatorText, typeNumber, typeText, isInvisible, isNegative
    }

    /// The fields every body holds, one bit per tag: the ones `KeychainItem` cannot lack.
    private static let requiredTags: UInt64 = [Tag.itemClass, .isSynchronizable, .accessibility, .accessControl, .secret]
        .reduce(0) { $0 | 1 << $1.rawValue }

    /// The body of `item`'s row; `nil` for an item with key or certificate attributes, whose
    /// row stays JSON.
    static func body(of item: KeychainItem) -> [UInt8]? {
        guard item.key == nil, item.certificate == nil else { return nil }
        var body: [UInt8] = [marker, version]
        body.reserveCapacity(128 + item.secret.count + (item.generic?.count ?? 0))
        func text(_ tag: Tag, _ value: String?) {
            guard var value else { return }
            value.withUTF8 { bytes(tag, UnsafeRawBufferPointer($0)) }
        }
        func data(_ tag: Tag, _ value: Data?) {
            value?.withUnsafeBytes { bytes(tag, $0) }
        }
        func bytes(_ tag: Tag, _ value: UnsafeRawBufferPointer) {
            body.append(tag.rawValue)
            body.appendLengthPrefixed(value)
        }
        func integer<Value: FixedWidthInteger>(_ tag: Tag, _ value: Value?) {
            guard let value else { return }
            body.append(tag.rawValue)
            body.appendBigEndian(UInt32(Value.bitWidth / 8))
            body.appendBigEndian(value)
        }
        func bool(_ tag: Tag, _ value: Bool?) {
            integer(tag, value.map { UInt8($0 ? 1 : 0) })
        }
        func date(_ tag: Tag, _ value: Date?) {
            integer(tag, value?.timeIntervalSince1970.bitPattern)
        }
        func code(_ value: FourCharacterCode?, number numberTag: Tag, text textTag: Tag) {
            switch value {
            case .number(let code): integer(numberTag, code)
            case .text(let code): text(textTag, code)
            case nil: break
            }
        }
        text(.itemClass, item.itemClass.rawValue)
        text(.service, item.service)
        text(.account, item.account)
        text(.accountEncoding, item.accountEncoding?.rawValue)
        text(.accessGroup, item.accessGroup?.rawValue)
        text(.label, item.label)
        text(.itemDescription, item.itemDescription)
        text(.comment, item.comment)
        data(.generic, item.generic)
        bool(.isSynchronizable, item.isSynchronizable)
        text(.accessibility, item.accessibility.rawValue)
        integer(.accessControl, UInt64(item.accessControl.rawValue))
        text(.server, item.server)
        text(.protocol, item.protocol)
        integer(.port, item.port.map { Int64($0) })
        text(.path, item.path)
        text(.authenticationType, item.authenticationType)
        text(.securityDomain, item.securityDomain)
        date(.creationDate, item.creationDate)
        date(.modificationDate, item.modificationDate)
        data(.persistentReference, item.persistentReference)
        data(.secret, item.secret)
        code(item.creator, number: .creatorNumber, text: .creatorText)
        code(item.type, number: .typeNumber, text: .typeText)
        bool(.isInvisible, item.isInvisible)
        bool(.isNegative, item.isNegative)
        return body
    }

    /// The item `body` holds, or `nil` when it is not a body of this layout.
    ///
    /// `rowGroup` is the group of the row it was opened from, if known: a body naming exactly
    /// that group takes the already validated value rather than validating its text again
    /// (1,500 instructions a lookup); any other group is validated as always.
    static func item(from body: [UInt8], rowGroup: GroupIdentifier? = nil) -> KeychainItem? {
        body.withUnsafeBytes { bytes -> KeychainItem? in
            guard bytes.count >= 2, bytes[0] == marker, bytes[1] == version else { return nil }
            var item = KeychainItem(secret: Data())
            var offset = 2
            var previous: UInt8 = 0
            var seen: UInt64 = 0
            while offset < bytes.count {
                guard bytes.count - offset >= 5, let tag = Tag(rawValue: bytes[offset]), tag.rawValue > previous else { return nil }
                previous = tag.rawValue
                let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 1, as: UInt32.self).bigEndian)
                offset += 5
                guard length <= bytes.count - offset else { return nil }
                let value = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
                offset += length
                guard assign(value, to: tag, of: &item, rowGroup: rowGroup) else { return nil }
                seen |= 1 << tag.rawValue
            }
            return seen & requiredTags == requiredTags ? item : nil
        }
    }

    /// Sets `tag`'s field of `item` from its value's bytes; `false` when they are not a value
    /// of that field.
    private static func assign(_ value: UnsafeRawBufferPointer, to tag: Tag, of item: inout KeychainItem, rowGroup: GroupIdentifier?) -> Bool {
        func text() -> String? { Self.text(value) }
        func integer<Value: FixedWidthInteger>(_: Value.Type) -> Value? {
            guard value.count == Value.bitWidth / 8 else { return nil }
            return Value(bigEndian: value.loadUnaligned(as: Value.self))
        }
        func bool() -> Bool? {
            guard let byte = integer(UInt8.self), byte <= 1 else { return nil }
            return byte == 1
        }
        func date() -> Date? {
            integer(UInt64.self).map { Date(timeIntervalSince1970: Double(bitPattern: $0)) }
        }
        switch tag {
        case .itemClass:
            guard let itemClass = Self.enumeration(ItemClass.self, named: value) else { return false }
            item.itemClass = itemClass
        case .service: item.service = text(); return item.service != nil
        case .account: item.account = text(); return item.account != nil
        case .accountEncoding:
            guard let encoding = text().flatMap(AttributeEncoding.init(rawValue:)) else { return false }
            item.accountEncoding = encoding
        case .accessGroup:
            if let rowGroup, spells(rowGroup.rawValue, value) {
                item.accessGroup = rowGroup
                return true
            }
            guard let group = text().flatMap(GroupIdentifier.init(rawValue:)) else { return false }
            item.accessGroup = group
        case .label: item.label = text(); return item.label != nil
        case .itemDescription: item.itemDescription = text(); return item.itemDescription != nil
        case .comment: item.comment = text(); return item.comment != nil
        case .generic: item.generic = Data(value)
        case .isSynchronizable:
            guard let flag = bool() else { return false }
            item.isSynchronizable = flag
        case .accessibility:
            guard let accessibility = Self.enumeration(Accessibility.self, named: value) else { return false }
            item.accessibility = accessibility
        case .accessControl:
            guard let raw = integer(UInt64.self), let flags = UInt(exactly: raw) else { return false }
            item.accessControl = AccessControlFlags(rawValue: flags)
        case .server: item.server = text(); return item.server != nil
        case .protocol: item.protocol = text(); return item.protocol != nil
        case .port:
            guard let port = integer(Int64.self).flatMap({ Int(exactly: $0) }) else { return false }
            item.port = port
        case .path: item.path = text(); return item.path != nil
        case .authenticationType: item.authenticationType = text(); return item.authenticationType != nil
        case .securityDomain: item.securityDomain = text(); return item.securityDomain != nil
        case .creationDate: item.creationDate = date(); return item.creationDate != nil
        case .modificationDate: item.modificationDate = date(); return item.modificationDate != nil
        case .persistentReference: item.persistentReference = Data(value)
        case .secret: item.secret = Data(value)
        case .creatorNumber, .creatorText:
            // One of the two at most: the number's tag comes first, so the text's finds it set.
            guard item.creator == nil, let code = tag == .creatorNumber ? integer(UInt32.self).map(FourCharacterCode.number) : text().map(FourCharacterCode.text) else { return false }
            item.creator = code
        case .typeNumber, .typeText:
            guard item.type == nil, let code = tag == .typeNumber ? integer(UInt32.self).map(FourCharacterCode.number) : text().map(FourCharacterCode.text) else { return false }
            item.type = code
        case .isInvisible: item.isInvisible = bool(); return item.isInvisible != nil
        case .isNegative: item.isNegative = bool(); return item.isNegative != nil
        }
        return true
    }

    /// The text `value` holds, `nil` when it is not UTF-8. Most attributes are ASCII, which is
    /// valid UTF-8 byte for byte, so they are made without `String(validating:)`'s general
    /// path (about 960 instructions a field, four fields a lookup); any other byte takes it.
    private static func text(_ value: UnsafeRawBufferPointer) -> String? {
        var bits: UInt8 = 0
        for byte in value { bits |= byte }
        return bits < 0x80 ? String(decoding: value, as: UTF8.self) : String(validating: value, as: UTF8.self)
    }

    /// The case of `Enumeration` whose raw value is exactly the UTF-8 in `value`, `nil` when
    /// none is: the same answer as `init(rawValue:)` of the text, without making the text.
    private static func enumeration<Enumeration: CaseIterable & RawRepresentable>(
        _: Enumeration.Type, named value: UnsafeRawBufferPointer
    ) -> Enumeration? where Enumeration.RawValue == String {
        Enumeration.allCases.first { spells($0.rawValue, value) }
    }

    /// Whether `value` is exactly the UTF-8 of `text`.
    private static func spells(_ text: String, _ value: UnsafeRawBufferPointer) -> Bool {
        var text = text
        return text.withUTF8 { haveSameBytes(UnsafeRawBufferPointer($0), value) }
    }
}
