/// Progress of a long operation (`verify`, `reseal`, `doctor`), as a callback the library's
/// `progress:` parameters can take directly: `(done, total)`.
///
/// On a terminal it rewrites one line on standard error; when standard error is not a terminal
/// (piped, in CI, under `--json`) it prints nothing, so output stays the same document.
/// Commands clear it with ``finish()`` before printing a result, and in a `defer` too, so an
/// error is never written onto the end of a progress line.
final class ProgressDisplay {
    let label: String
    let isShown: Bool
    /// Whether a progress line is on the screen now.
    private var isDrawn = false

    init(_ label: String, json: Bool) {
        self.label = label
        isShown = !json && Terminal.standardErrorIsTerminal
    }

    func update(done: Int, total: Int) {
        guard isShown else { return }
        Terminal.writeError("\r\u{1b}[K\(label) \(done)/\(total)")
        isDrawn = true
    }

    /// Clears the progress line, if one is shown; calling it again does nothing.
    func finish() {
        guard isDrawn else { return }
        Terminal.writeError("\r\u{1b}[K")
        isDrawn = false
    }
}
