import SealedStorage

/// A command line for a person to run in a POSIX shell, built from words that may come from
/// disk (a file name planted by whoever can write a group container).
///
/// Every word is quoted with POSIX single quotes, inside which the shell gives no character a
/// meaning; a quote inside the word ends the quoting, adds an escaped quote and starts it again
/// (`it's` becomes `'it'\''s'`). So `sh -c` of the line runs exactly the command with exactly
/// these words, whatever they contain.
///
/// A line is made only for words a person can read and a line-oriented tool cannot split: a
/// word holding a control character (a newline above all), a format character (bidirectional
/// overrides, zero-width characters), a line or paragraph separator, or U+FFFD (a name that was
/// not valid UTF-8 on disk, so the word is not the name) gets no command at all. A newline
/// inside quotes is one word to `sh -c`, but `... | while read line; do sh -c "$line"` would
/// run the text after it as a second command, and escaped for the terminal the line would name
/// a different file. `$'...'` quoting could carry such bytes, but dash, Debian's `sh`, reads
/// `$'a'` as `$` followed by `a`, a different name again.
struct ShellCommand {
    /// The words, unquoted.
    let words: [String]

    init(_ words: String...) {
        self.words = words
    }

    /// The line to print, or `nil` when a word cannot be shown safely (see the type's comment).
    var line: String? {
        guard words.allSatisfy(Self.isShowable) else { return nil }
        return words.map(Self.quoted).joined(separator: " ")
    }

    /// `word` single-quoted, unless it is made only of characters no shell treats specially
    /// (then it is shown as it is: `chmod 600`, not `'chmod' '600'`).
    static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_.,:=+@%".unicodeScalars.contains(scalar))
        }
        if plain { return word }
        // Scalar by scalar, not Character by Character: `'` followed by a combining mark is one
        // Character that is not `'` (so `replacingOccurrences` would leave it), yet its first
        // byte is the quote that ends the shell's quoting. In UTF-8 no other scalar holds that
        // byte, so escaping every U+0027 scalar escapes every quote the shell will see.
        var quoted = String.UnicodeScalarView()
        quoted.append("'")
        for scalar in word.unicodeScalars {
            if scalar == "'" {
                quoted.append(contentsOf: "'\\''".unicodeScalars)
            } else {
                quoted.append(scalar)
            }
        }
        quoted.append("'")
        return String(quoted)
    }

    /// Whether `word` prints as itself: nothing the terminal escaper would change, and no
    /// U+FFFD standing for bytes that were not UTF-8.
    static func isShowable(_ word: String) -> Bool {
        !word.unicodeScalars.contains("\u{FFFD}") && UntrustedText.printable(word, limit: Int.max) == word
    }
}
