extension Unicode.Scalar {
    /// Whether this scalar is in Foundation's `CharacterSet.whitespacesAndNewlines`: the Unicode
    /// separators (categories Zs, Zl, Zp), the controls U+0009 to U+000D and U+0085, and U+200B.
    ///
    /// Written out so the read path needs no `CharacterSet`, which FoundationEssentials lacks;
    /// the set is exactly Foundation's (checked scalar by scalar against it), so trimming the
    /// entitlements file or the lock-state file accepts what it accepted before.
    var isWhitespaceOrNewline: Bool {
        switch value {
        case 0x09...0x0D, 0x85, 0x200B: return true
        default:
            switch properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
            default: return false
            }
        }
    }
}

extension String {
    /// This text without leading and trailing whitespace and newlines, as Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` returns it (scalar by scalar).
    func trimmingWhitespaceAndNewlines() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isWhitespaceOrNewline }),
              let last = scalars.lastIndex(where: { !$0.isWhitespaceOrNewline })
        else { return "" }
        return String(scalars[first...last])
    }
}
