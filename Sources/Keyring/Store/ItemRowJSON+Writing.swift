#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage

extension ItemRowJSON {
    /// The JSON of `item`'s row, byte for byte what `JSONEncoder` makes of it with the row's
    /// settings (sorted keys, dates as seconds since 1970, data as base64, `/` escaped), written
    /// directly; `nil` for an item with key or certificate attributes, whose nested objects are
    /// left to `JSONEncoder`.
    ///
    /// Why: in a profile of 1,500 `Keyring.add` calls, `JSONEncoder` took about 40% of the
    /// add's own CPU time (the flush aside): a boxed container per value, a coding path, a tree
    /// built and then serialised, for one flat object of known keys. Byte for byte, so the
    /// stored format does not change at all: `ItemRowJSONTests` compare the two over
    /// items with every attribute and seeded random ones.
    static func json(of item: KeychainItem) -> [UInt8]? {
        guard item.key == nil, item.certificate == nil else { return nil }
        var object = ObjectWriter()
        // In the order JSONEncoder's `.sortedKeys` puts them; absent optionals are left out, as
        // the synthesized `encode(to:)` leaves them out (`encodeIfPresent`).
        object.number("accessControl", String(item.accessControl.rawValue))
        object.string("accessGroup", item.accessGroup?.rawValue)
        object.string("accessibility", item.accessibility.rawValue)
        object.string("account", item.account)
        object.string("accountEncoding", item.accountEncoding?.rawValue)
        object.string("authenticationType", item.authenticationType)
        object.string("comment", item.comment)
        object.date("creationDate", item.creationDate)
        object.code("creator", item.creator)
        object.data("generic", item.generic)
        object.bool("isInvisible", item.isInvisible)
        object.bool("isNegative", item.isNegative)
        object.bool("isSynchronizable", item.isSynchronizable)
        object.string("itemClass", item.itemClass.rawValue)
        object.string("itemDescription", item.itemDescription)
        object.string("label", item.label)
        object.date("modificationDate", item.modificationDate)
        object.string("path", item.path)
        object.data("persistentReference", item.persistentReference)
        object.number("port", item.port.map { String($0) })
        object.string("protocol", item.protocol)
        object.data("secret", item.secret)
        object.string("securityDomain", item.securityDomain)
        object.string("server", item.server)
        object.string("service", item.service)
        object.code("type", item.type)
        return object.finished()
    }

    /// One JSON object, written member by member; a `nil` value writes no member.
    private struct ObjectWriter {
        private var bytes: [UInt8] = [UInt8(ascii: "{")]

        init() {
            bytes.reserveCapacity(512)
        }

        mutating func string(_ key: String, _ value: String?) {
            guard let value else { return }
            member(key)
            JSONStringWriter.write(value, slashes: .escaped, to: &bytes)
        }

        /// A number already in JSON's form.
        mutating func number(_ key: String, _ text: String?) {
            guard let text else { return }
            member(key)
            bytes.append(contentsOf: text.utf8)
        }

        mutating func bool(_ key: String, _ value: Bool?) {
            number(key, value.map { $0 ? "true" : "false" })
        }

        /// `Data` as `JSONEncoder`'s default strategy writes it: a base64 string.
        mutating func data(_ key: String, _ value: Data?) {
            string(key, value?.base64EncodedString())
        }

        /// A date as `.secondsSince1970` writes it: the `Double`, without a `.0` for a whole
        /// number of seconds.
        mutating func date(_ key: String, _ value: Date?) {
            number(key, value.map { date in
                let text = date.timeIntervalSince1970.description
                return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
            })
        }

        /// A four-character code as its `encode(to:)` writes it: a number or a string.
        mutating func code(_ key: String, _ value: FourCharacterCode?) {
            switch value {
            case .number(let number): self.number(key, String(number))
            case .text(let text): string(key, text)
            case nil: break
            }
        }

        private mutating func member(_ key: String) {
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            JSONStringWriter.write(key, slashes: .escaped, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
        }

        consuming func finished() -> [UInt8] {
            bytes.append(UInt8(ascii: "}"))
            return bytes
        }
    }
}
