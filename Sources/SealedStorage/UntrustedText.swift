/// Text from outside (a file name, an identifier, an environment variable, a peer's words) made
/// safe to quote in an error message: invisible and controlling characters escaped, overlong
/// input cut, so a hostile value can neither forge log lines, nor drive a terminal, nor make
/// the text read differently from what it is.
package enum UntrustedText {
    /// `string` with every character that is not plainly visible shown as `\u{..}`, and at most
    /// `limit` characters kept.
    ///
    /// Escaped: controls (C0, DEL and C1: U+009B alone starts a terminal control sequence on
    /// many terminals), format characters (the bidirectional overrides and isolates that
    /// reorder what a reader sees, zero-width characters), and the line and paragraph
    /// separators (which start a new line in many log viewers).
    package static func printable(_ string: String, limit: Int = 160) -> String {
        let shown = string.unicodeScalars.prefix(limit).map { scalar in
            isShownEscaped(scalar) ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }.joined()
        return string.unicodeScalars.count > limit ? shown + "…" : shown
    }

    private static func isShownEscaped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator:
            return true
        default:
            return false
        }
    }
}
