extension String {
    /// Whether `self` and `other` are equal ignoring case, scalar by scalar, with no Unicode
    /// normalization: what `kSecMatchCaseInsensitive` asks for, and what Foundation's
    /// `compare(_:options: [.caseInsensitive, .literal])` answered before the read path moved to
    /// FoundationEssentials (which has neither that option nor `CharacterSet`).
    ///
    /// Each scalar is case-folded (see `caseFolded`), so "Straße" matches "STRASSE" and a
    /// precomposed "é" does not match "e" followed by a combining accent, as before.
    /// Decision: where swift-corelibs-foundation's older Unicode tables know no case pair (letters
    /// outside the Basic Multilingual Plane such as Deseret, and the few BMP pairs added since
    /// Unicode 9), this follows the Unicode data of the Swift runtime and matches them; every
    /// pair Foundation called equal is still equal.
    func equalsIgnoringCase(_ other: String) -> Bool {
        caseFolded.elementsEqual(other.caseFolded)
    }

    /// The scalars of this text, case-folded one by one: lowercase of the uppercase of the
    /// lowercase, which is Unicode's full case folding for every scalar but the Turkish dotless
    /// "ı" (its folding is itself; the round trip through "I" would make it "i").
    private var caseFolded: [Unicode.Scalar] {
        var folded: [Unicode.Scalar] = []
        folded.reserveCapacity(unicodeScalars.count)
        for scalar in unicodeScalars {
            if scalar == "\u{131}" {
                folded.append(scalar)
                continue
            }
            for lower in scalar.properties.lowercaseMapping.unicodeScalars {
                for upper in lower.properties.uppercaseMapping.unicodeScalars {
                    folded.append(contentsOf: upper.properties.lowercaseMapping.unicodeScalars)
                }
            }
        }
        return folded
    }
}
