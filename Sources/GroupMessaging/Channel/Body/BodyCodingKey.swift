/// A coding-path entry the body coders make themselves: an array index, the key `super` of a
/// super-encoder or super-decoder, or a map key read from a body that failed before any type
/// named its keys.
struct BodyCodingKey: CodingKey {
    /// The key `superEncoder()` and `superDecoder()` use, as `JSONEncoder` does.
    static let superKey = "super"

    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}
