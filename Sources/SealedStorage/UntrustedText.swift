/// Text from outside (a file name, an identifier, an environment variable) made safe to quote
/// in an error message: control characters escaped, overlong input cut, so a hostile value can
/// neither forge log lines nor flood them.
package enum UntrustedText {
    /// `string` with control characters shown as `\u{..}` and at most `limit` characters kept.
    package static func printable(_ string: String, limit: Int = 160) -> String {
        let shown = string.unicodeScalars.prefix(limit).map { scalar in
            scalar.value < 0x20 || scalar.value == 0x7F ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }.joined()
        return string.unicodeScalars.count > limit ? shown + "…" : shown
    }
}
