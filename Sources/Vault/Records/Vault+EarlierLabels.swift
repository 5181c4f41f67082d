#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The labels before the record name had one preposition per direction (docs/ARCHITECTURE.md,
// "One label for the record name"): kept so code written against them still builds, with a
// fix-it to the new spelling.
extension Vault {
    /// Earlier spelling of ``write(_:to:expiresAt:)``.
    @available(*, deprecated, renamed: "write(_:to:expiresAt:)", message: "the record name is labelled to: when written, from: when read")
    @discardableResult
    public func write<Value: VaultRecord>(_ value: Value, as name: String, expiresAt: Date? = nil) throws(VaultError) -> RecordHeader {
        try write(value, to: name, expiresAt: expiresAt)
    }

    /// Earlier spelling of ``read(_:from:)``.
    @available(*, deprecated, renamed: "read(_:from:)", message: "the record name is labelled to: when written, from: when read")
    public func read<Value: VaultRecord>(_ type: Value.Type, name: String) throws(VaultError) -> Value {
        try read(type, from: name)
    }

    /// Earlier spelling of ``readIfValid(_:from:onRefusal:)``.
    @available(*, deprecated, renamed: "readIfValid(_:from:onRefusal:)", message: "the record name is labelled to: when written, from: when read")
    public func readIfValid<Value: VaultRecord>(_ type: Value.Type, name: String, onRefusal: ((VaultError) -> Void)? = nil) -> Value? {
        readIfValid(type, from: name, onRefusal: onRefusal)
    }
}
