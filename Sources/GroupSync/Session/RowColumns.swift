import PostgresNIO

/// The columns of a row read from left to right, each decoded as the type the caller names.
///
/// postgres-nio's `row.decode((A, B, C).self)` takes the tuple of types as a variadic generic
/// pack, and the Swift runtime then looks the tuple's metadata up in its caches for every row
/// decoded. In a profile of first syncs of 10,000 values (2,000 of them as rows), that lookup
/// and the pack's bookkeeping took most of the rows' decoding. A cell decoded by its own type
/// pays none of it; the bytes are decoded by the same `PostgresDecodable` conformances.
struct RowColumns {
    private var cells: PostgresRow.Iterator

    init(_ row: PostgresRow) {
        cells = row.makeIterator()
    }

    /// The next column as a `Value`.
    /// - Throws: postgres-nio's `missingData` when the row has no more columns, and what
    ///   `Value`'s decoding throws for a cell it cannot read (a `NULL`, unless `Value` is
    ///   optional; bytes of another type).
    mutating func next<Value: PostgresDecodable>(_: Value.Type) throws -> Value {
        guard let cell = cells.next() else { throw PostgresDecodingError.Code.missingData }
        return try cell.decode(Value.self)
    }
}
