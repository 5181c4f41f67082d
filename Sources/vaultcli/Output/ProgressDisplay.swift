/// Progress of a long operation (`verify`, `reseal`, `doctor`), as a callback the library's
/// `progress:` parameters can take directly: `(done, total)`.
///
/// On a terminal it rewrites one line on standard error; when standard error is not a terminal
/// (piped, in CI, under `--json`) it prints nothing, so output stays the same document.
struct ProgressDisplay {
    let label: String
    let isShown: Bool

    init(_ label: String, json: Bool) {
        self.label = label
        isShown = !json && Terminal.standardErrorIsTerminal
    }

    func update(done: Int, total: Int) {
        guard isShown else { return }
        Terminal.writeError("\r\u{1b}[K\(label) \(done)/\(total)")
    }

    /// Clears the progress line, before the result is printed.
    func finish() {
        guard isShown else { return }
        Terminal.writeError("\r\u{1b}[K")
    }
}
