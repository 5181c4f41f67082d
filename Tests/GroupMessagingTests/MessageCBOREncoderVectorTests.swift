@_spi(Benchmarks) @testable import GroupMessaging
import XCTest

/// The encoder's output against RFC 8949 Appendix A, for every item of the subset it writes
/// (docs/MESSAGING.md, "Body formats"). `Double` is always float64 and `Float` float32, so each
/// floating-point vector is checked at the width the appendix gives it.
final class MessageCBOREncoderVectorTests: XCTestCase {
    func testUnsignedIntegersAreTheAppendixVectors() throws {
        let vectors: [(UInt64, String)] = [
            (0, "00"), (1, "01"), (10, "0a"), (23, "17"), (24, "1818"), (25, "1819"), (100, "1864"), (1000, "1903e8"),
            (1_000_000, "1a000f4240"), (1_000_000_000_000, "1b000000e8d4a51000"), (18_446_744_073_709_551_615, "1bffffffffffffffff"),
        ]
        for (value, hex) in vectors { XCTAssertEqual(try cbor(value), hexBytes(hex), "\(value)") }
    }

    func testNegativeIntegersAreTheAppendixVectors() throws {
        let vectors: [(Int64, String)] = [(-1, "20"), (-10, "29"), (-100, "3863"), (-1000, "3903e7")]
        for (value, hex) in vectors { XCTAssertEqual(try cbor(value), hexBytes(hex), "\(value)") }
    }

    func testDoublesAreTheAppendixFloat64Vectors() throws {
        let vectors: [(Double, String)] = [
            (1.1, "fb3ff199999999999a"), (1.0e+300, "fb7e37e43c8800759c"), (-4.1, "fbc010666666666666"),
            (.infinity, "fb7ff0000000000000"), (.nan, "fb7ff8000000000000"), (-.infinity, "fbfff0000000000000"),
        ]
        for (value, hex) in vectors { XCTAssertEqual(try cbor(value), hexBytes(hex), "\(value)") }
    }

    func testFloatsAreTheAppendixFloat32Vectors() throws {
        let vectors: [(Float, String)] = [
            (100_000.0, "fa47c35000"), (3.4028234663852886e+38, "fa7f7fffff"),
            (.infinity, "fa7f800000"), (.nan, "fa7fc00000"), (-.infinity, "faff800000"),
        ]
        for (value, hex) in vectors { XCTAssertEqual(try cbor(value), hexBytes(hex), "\(value)") }
    }

    func testFalseTrueAndNullAreTheAppendixVectors() throws {
        XCTAssertEqual(try cbor(false), hexBytes("f4"))
        XCTAssertEqual(try cbor(true), hexBytes("f5"))
        XCTAssertEqual(try cbor(Int?.none), hexBytes("f6"))
    }

    func testDataIsAByteStringAsTheAppendixVectors() throws {
        XCTAssertEqual(try cbor(Data()), hexBytes("40"))
        XCTAssertEqual(try cbor(Data([1, 2, 3, 4])), hexBytes("4401020304"))
    }

    func testStringsAreTheAppendixTextVectors() throws {
        let vectors: [(String, String)] = [
            ("", "60"), ("a", "6161"), ("IETF", "6449455446"), ("\"\\", "62225c"),
            ("\u{00FC}", "62c3bc"), ("\u{6C34}", "63e6b0b4"), ("\u{10151}", "64f0908591"),
        ]
        for (value, hex) in vectors { XCTAssertEqual(try cbor(value), hexBytes(hex), value.debugDescription) }
    }

    func testArraysAreTheAppendixVectors() throws {
        XCTAssertEqual(try cbor([Int]()), hexBytes("80"))
        XCTAssertEqual(try cbor([1, 2, 3]), hexBytes("83010203"))
        XCTAssertEqual(try cbor(Array(1...25)), hexBytes("98190102030405060708090a0b0c0d0e0f101112131415161718181819"))
    }

    func testNestedArraysAreTheAppendixVector() throws {
        // [1, [2, 3], [4, 5]]
        struct Mixed: Encodable {
            func encode(to encoder: any Encoder) throws {
                var array = encoder.unkeyedContainer()
                try array.encode(1)
                try array.encode([2, 3])
                try array.encode([4, 5])
            }
        }
        XCTAssertEqual(try cbor(Mixed()), hexBytes("8301820203820405"))
    }

    func testKeyedContainersAreTheAppendixMapVectors() throws {
        struct Empty: Encodable {}
        struct AB: Encodable {
            var a = 1
            var b = [2, 3]
        }
        struct Letters: Encodable {
            var a = "A", b = "B", c = "C", d = "D", e = "E"
        }
        XCTAssertEqual(try cbor(Empty()), hexBytes("a0"))
        XCTAssertEqual(try cbor(AB()), hexBytes("a26161016162820203"))
        XCTAssertEqual(try cbor(Letters()), hexBytes("a56161614161626142616361436164614461656145"))
    }

    func testAMapInAnArrayIsTheAppendixVector() throws {
        // ["a", {"b": "c"}]
        struct B: Encodable { var b = "c" }
        struct Mixed: Encodable {
            func encode(to encoder: any Encoder) throws {
                var array = encoder.unkeyedContainer()
                try array.encode("a")
                try array.encode(B())
            }
        }
        XCTAssertEqual(try cbor(Mixed()), hexBytes("826161a161626163"))
    }

    func testTheReaderTakesEveryAppendixVectorOfTheSubsetBack() throws {
        XCTAssertEqual(try decodeCBOR(UInt64.self, hexBytes("1bffffffffffffffff")), .max)
        XCTAssertEqual(try decodeCBOR(Int.self, hexBytes("3903e7")), -1000)
        XCTAssertEqual(try decodeCBOR(Double.self, hexBytes("fb3ff199999999999a")), 1.1)
        XCTAssertEqual(try decodeCBOR(Float.self, hexBytes("fa47c35000")), 100_000)
        XCTAssertEqual(try decodeCBOR(String.self, hexBytes("64f0908591")), "\u{10151}")
        XCTAssertEqual(try decodeCBOR(Data.self, hexBytes("4401020304")), Data([1, 2, 3, 4]))
        XCTAssertEqual(try decodeCBOR([Int].self, hexBytes("98190102030405060708090a0b0c0d0e0f101112131415161718181819")), Array(1...25))
        XCTAssertEqual(try decodeCBOR([String: String].self, hexBytes("a56161614161626142616361436164614461656145")),
                       ["a": "A", "b": "B", "c": "C", "d": "D", "e": "E"])
        XCTAssertEqual(try decodeCBOR(Bool?.self, hexBytes("f6")), nil)
    }

    func testTheReaderTakesTheAppendixHalfPrecisionVectorsExactly() throws {
        let vectors: [(String, Double)] = [
            ("f90000", 0.0), ("f93c00", 1.0), ("f93e00", 1.5), ("f97bff", 65504.0),
            ("f90001", 5.960464477539063e-8), ("f90400", 0.00006103515625), ("f9c400", -4.0),
            ("f97c00", .infinity), ("f9fc00", -.infinity),
        ]
        for (hex, value) in vectors { XCTAssertEqual(try decodeCBOR(Double.self, hexBytes(hex)), value, hex) }
        XCTAssertEqual(try decodeCBOR(Double.self, hexBytes("f98000")).sign, .minus, "-0.0")
        XCTAssertTrue(try decodeCBOR(Double.self, hexBytes("f97e00")).isNaN)
        XCTAssertEqual(try decodeCBOR(Float.self, hexBytes("f97bff")), 65504.0)
    }
}
