/// Whether an attribute that Apple's API accepts either as text or as bytes was given as text
/// (`String`) or as bytes (`Data`), so it is returned the way it was stored.
///
/// Apple stores `kSecAttrAccount` as bytes whatever its type and returns it as the type it was
/// given: a wrapper that writes its accounts as `Data` reads `Data` back. The native API
/// keeps the account as text (the UTF-8 bytes compare the same either way, so matching is
/// unaffected) and remembers the encoding beside it, as part of the item's attributes, so
/// every store round-trips it.
public enum AttributeEncoding: String, Sendable, Hashable, Codable {
    /// Given and returned as a string (the default; what every native caller writes).
    case text
    /// Given and returned as `Data` holding the UTF-8 bytes of the text.
    case data
}
