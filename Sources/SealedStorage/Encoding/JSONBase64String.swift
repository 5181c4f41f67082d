#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading a JSON string that holds base64 the way `JSONEncoder` writes `Data`: the base64
/// characters with every `/` escaped as `\/`, and no other escape.
///
/// Two readers skip `JSONDecoder` on their hot path for this: an item row's secret (Keyring,
/// `ItemRowJSON`, on every lookup) and a synced entry's value (GroupSyncCore, `SyncPayload`, on
/// every row of a first sync). Both decode the base64 with Foundation's `Data(base64Encoded:)`,
/// as `JSONDecoder` does, so what they accept and what they produce is `JSONDecoder`'s; any other
/// escape is reported as such and the caller reads the string its general way.
/// `JSONBase64StringTests` pin it; `ItemRowJSONTests` and `SyncPayloadTests` compare both
/// callers with `JSONDecoder`.
package enum JSONBase64String {
    /// What scanning a string found.
    package enum Scan: Equatable {
        /// The string decoded to `bytes`; its closing quote is at `closingQuote`.
        case decoded(Data, closingQuote: Int)
        /// The string holds an escape other than `\/`: not this reader's to decide.
        case otherEscape
        /// No closing quote, or the contents are not base64.
        case invalid
    }

    /// Scans the string whose contents start at `start` (just after its opening quote) up to its
    /// first unescaped quote, and decodes it.
    package static func scan(_ bytes: UnsafeBufferPointer<UInt8>, contentsFrom start: Int) -> Scan {
        guard let base = bytes.baseAddress, start <= bytes.count else { return .invalid }
        // The common case, a string without escapes, found by two `memchr`s rather than a look
        // at each base64 character. (A backslash before the first quote sends the string to the
        // loop below, which also finds an escaped quote.)
        if let quote = memchr(base + start, Int32(UInt8(ascii: "\"")), bytes.count - start) {
            let end = UnsafePointer<UInt8>(quote.assumingMemoryBound(to: UInt8.self)) - base
            if memchr(base + start, Int32(UInt8(ascii: "\\")), end - start) == nil {
                guard let data = Data(base64Encoded: Data(UnsafeBufferPointer(rebasing: bytes[start..<end]))) else { return .invalid }
                return .decoded(data, closingQuote: end)
            }
        }
        var index = start
        var escapedSlashes = 0
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            if bytes[index] == UInt8(ascii: "\\") {
                guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") else { return .otherEscape }
                escapedSlashes += 1
                index += 1
            }
            index += 1
        }
        guard index < bytes.count else { return .invalid }
        var unescaped: [UInt8] = []
        unescaped.reserveCapacity(index - start - escapedSlashes)
        var position = start
        while position < index {
            // Every backslash here starts a `\/`, checked above: keep the slash.
            if bytes[position] == UInt8(ascii: "\\") { position += 1 }
            unescaped.append(bytes[position])
            position += 1
        }
        guard let data = Data(base64Encoded: Data(unescaped)) else { return .invalid }
        return .decoded(data, closingQuote: index)
    }
}
