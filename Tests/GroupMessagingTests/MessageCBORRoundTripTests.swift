import Foundation
@_spi(Benchmarks) @testable import GroupMessaging
import XCTest

/// Values through the CBOR encoder and back through the CBOR decoder: every part of the
/// `Codable` mapping docs/MESSAGING.md ("Body formats") gives, and the bytes where the mapping
/// decides them.
final class MessageCBORRoundTripTests: XCTestCase {
    private func roundTrip<Value: Codable>(_ value: Value) throws -> Value {
        try decodeCBOR(Value.self, cbor(value))
    }

    func testNestedStructsComeBackEqual() throws {
        struct Inner: Codable, Equatable { var name: String; var scores: [Int] }
        struct Outer: Codable, Equatable { var id: UInt32; var inner: Inner; var others: [Inner] }
        let value = Outer(id: 7, inner: Inner(name: "a", scores: [1, -2]), others: [Inner(name: "b", scores: []), Inner(name: "ü", scores: [3])])
        XCTAssertEqual(try roundTrip(value), value)
    }

    func testAnAbsentOptionalIsLeftOutOfTheMap() throws {
        struct Note: Codable, Equatable { var title: String?; var count = 1 }
        XCTAssertEqual(try cbor(Note(title: nil)), hexBytes("a165636f756e7401"))  // {"count": 1}
        XCTAssertEqual(try roundTrip(Note(title: nil)), Note(title: nil))
        XCTAssertEqual(try roundTrip(Note(title: "t")), Note(title: "t"))
    }

    func testAnOptionalEncodedAsNullIsNullInTheMapAndDecodesAsNil() throws {
        struct Note: Codable, Equatable {
            var title: String?
            enum CodingKeys: String, CodingKey { case title }
            init(title: String?) { self.title = title }
            init(from decoder: any Decoder) throws {
                title = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .title)
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(title, forKey: .title)  // nil as null, not left out
            }
        }
        XCTAssertEqual(try cbor(Note(title: nil)), hexBytes("a1657469746c65f6"))  // {"title": null}
        XCTAssertEqual(try roundTrip(Note(title: nil)), Note(title: nil))
    }

    func testArraysOfOptionalsKeepTheirNulls() throws {
        let value: [Int?] = [1, nil, 3]
        XCTAssertEqual(try cbor(value), hexBytes("8301f603"))
        XCTAssertEqual(try roundTrip(value), value)
    }

    func testStringKeyedDictionariesAreMaps() throws {
        let value = ["x": 1]
        XCTAssertEqual(try cbor(value), hexBytes("a1617801"))
        XCTAssertEqual(try roundTrip(["x": 1, "y": 2, "": 3]), ["x": 1, "y": 2, "": 3])
    }

    func testIntKeyedDictionariesAreMapsWithTheKeysAsDecimalText() throws {
        // Swift encodes them through a keyed container whose keys' strings are the numbers.
        XCTAssertEqual(try cbor([-5: true]), hexBytes("a1622d35f5"))  // {"-5": true}
        XCTAssertEqual(try roundTrip([1: "a", -2: "b", Int.max: "c"]), [1: "a", -2: "b", Int.max: "c"])
    }

    func testEnumsWithAssociatedValuesComeBackEqual() throws {
        enum Shape: Codable, Equatable {
            case circle(radius: Double)
            case rect(Int, Int)
            case empty
        }
        for shape in [Shape.circle(radius: 2.5), .rect(3, -4), .empty] {
            XCTAssertEqual(try roundTrip([shape]), [shape])
        }
    }

    func testDataDateAndURLAreAByteStringAFloat64AndText() throws {
        struct Mixed: Codable, Equatable { var d: Data; var t: Date; var u: URL }
        let date = Date(timeIntervalSinceReferenceDate: 1.5)
        let value = Mixed(d: Data([0, 0xFF]), t: date, u: URL(string: "https://example.com/a?b=c")!)
        XCTAssertEqual(
            try cbor(value),
            hexBytes("a3") + hexBytes("6164" + "4200ff") + hexBytes("6174" + "fb3ff8000000000000")
                + hexBytes("6175") + [0x78, 25] + Array("https://example.com/a?b=c".utf8))
        XCTAssertEqual(try roundTrip(value), value)
    }

    func testDecimalsAreTheirTextAndComeBackExactly() throws {
        let value = Decimal(string: "-12345678901234567890.125", locale: nil)!
        XCTAssertEqual(try cbor(value), [0x78, 25] + Array("-12345678901234567890.125".utf8))
        XCTAssertEqual(try roundTrip(value), value)
        XCTAssertEqual(try roundTrip(Decimal(0)), 0)
    }

    func testADecimalThatIsNotANumberIsRefusedByTheEncoder() {
        XCTAssertThrowsError(try cbor(Decimal.nan)) { error in
            guard case EncodingError.invalidValue = error else { return XCTFail("\(error)") }
        }
    }

    func testEveryIntegerWidthComesBackAtItsBounds() throws {
        struct Bounds: Codable, Equatable {
            var i8: [Int8] = [.min, .max], i16: [Int16] = [.min, .max], i32: [Int32] = [.min, .max], i64: [Int64] = [.min, .max]
            var int: [Int] = [.min, .max], u8: [UInt8] = [.min, .max], u16: [UInt16] = [.min, .max], u32: [UInt32] = [.min, .max]
            var u64: [UInt64] = [.min, .max], uint: [UInt] = [.min, .max]
        }
        XCTAssertEqual(try roundTrip(Bounds()), Bounds())
        XCTAssertEqual(try cbor(Int64.min), hexBytes("3b7fffffffffffffff"))
    }

    func testFloatingPointSpecialsComeBackWithTheirSignsAndNaN() throws {
        let doubles = try roundTrip([Double.nan, .infinity, -.infinity, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude])
        XCTAssertTrue(doubles[0].isNaN)
        XCTAssertEqual(Array(doubles[1...2]), [.infinity, -.infinity])
        XCTAssertEqual(doubles[3].sign, .minus)
        XCTAssertEqual(doubles[3], 0)
        XCTAssertEqual(Array(doubles[4...]), [.leastNonzeroMagnitude, .greatestFiniteMagnitude])
        let floats = try roundTrip([Float.nan, .infinity, -.infinity, -0.0, .leastNonzeroMagnitude])
        XCTAssertTrue(floats[0].isNaN)
        XCTAssertEqual(Array(floats[1...2]), [.infinity, -.infinity])
        XCTAssertEqual(floats[3].sign, .minus)
        XCTAssertEqual(floats[4], .leastNonzeroMagnitude)
        XCTAssertEqual(try cbor(Float(-0.0)), hexBytes("fa80000000"))
    }

    func testAClassHierarchyKeepsTheSuperclassUnderTheKeySuper() throws {
        class Base: Codable {
            var id: Int
            init(id: Int) { self.id = id }
        }
        final class Derived: Base {
            var label: String
            enum CodingKeys: String, CodingKey { case label }
            init(id: Int, label: String) {
                self.label = label
                super.init(id: id)
            }
            required init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                label = try container.decode(String.self, forKey: .label)
                try super.init(from: container.superDecoder())
            }
            override func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(label, forKey: .label)
                try super.encode(to: container.superEncoder())
            }
        }
        // {"label": "x", "super": {"id": 3}}
        XCTAssertEqual(try cbor(Derived(id: 3, label: "x")), hexBytes("a2656c6162656c6178657375706572a1626964" + "03"))
        let back = try decodeCBOR(Derived.self, cbor(Derived(id: 3, label: "x")))
        XCTAssertEqual(back.id, 3)
        XCTAssertEqual(back.label, "x")
    }

    func testAKeyEncodedTwiceKeepsItsLastValueOnce() throws {
        struct Twice: Encodable {
            enum CodingKeys: String, CodingKey { case a }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(1, forKey: .a)
                try container.encode(2, forKey: .a)
            }
        }
        XCTAssertEqual(try cbor(Twice()), hexBytes("a1616102"))
    }

    func testIntegersAreReadAsDoublesAndFloatsWhenTheyHoldThemExactly() throws {
        XCTAssertEqual(try decodeCBOR(Double.self, hexBytes("1903e8")), 1000)
        XCTAssertEqual(try decodeCBOR(Float.self, hexBytes("3863")), -100)
        XCTAssertEqual(try decodeCBOR(Float.self, hexBytes("fb3ff8000000000000")), 1.5, "a float64 a Float holds exactly")
    }
}
