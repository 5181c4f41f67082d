import Foundation
@_spi(Benchmarks) @testable import GroupMessaging
import XCTest

/// The bytes a hex string such as `"a26161"` spells (RFC 8949 Appendix A's notation).
func hexBytes(_ hex: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var digits = hex.makeIterator()
    while let high = digits.next(), let low = digits.next() {
        bytes.append(UInt8(String([high, low]), radix: 16)!)
    }
    return bytes
}

/// `value` encoded by the channel's CBOR encoder.
func cbor<Value: Encodable>(_ value: Value) throws -> [UInt8] {
    try MessageCBOREncoder.encode(value)
}

/// `bytes` decoded by the channel's CBOR decoder as `type`.
func decodeCBOR<Value: Decodable>(_ type: Value.Type, _ bytes: [UInt8]) throws -> Value {
    try MessageCBORDecoder.decode(type, from: Data(bytes))
}

/// Asserts that decoding `bytes` as `type` is refused by the reader with a reason containing
/// `reason`, at byte `offset`.
func assertCBORRefused<Value: Decodable>(
    _ bytes: [UInt8], as type: Value.Type, _ reason: String, at offset: Int, file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertThrowsError(try decodeCBOR(type, bytes), file: file, line: line) { error in
        guard let cause = cborCause(of: error) else {
            return XCTFail("not refused by the CBOR reader: \(error)", file: file, line: line)
        }
        XCTAssertTrue(cause.reason.contains(reason), "reason: \(cause.reason)", file: file, line: line)
        XCTAssertEqual(cause.offset, offset, file: file, line: line)
    }
}

/// The reader's error under a `DecodingError`, if it has one.
func cborCause(of error: any Error) -> CBORReadError? {
    guard let error = error as? DecodingError else { return nil }
    switch error {
    case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context):
        return context.underlyingError as? CBORReadError
    @unknown default:
        return nil
    }
}
