/// Human output: a header row and aligned columns, every cell escaped, fitted to the
/// terminal's width.
///
/// Cells are escaped here, at the one place text reaches the terminal, so no command can forget
/// to escape a name that came from disk.
struct Table {
    let header: [String]
    private(set) var rows: [[String]] = []

    /// The narrowest a column is made when the table is fitted to a width (and never
    /// narrower than its header, which stays one line).
    static let minimumColumnWidth = 8

    init(_ header: String...) {
        self.header = header
    }

    init(_ header: [String]) {
        self.header = header
    }

    mutating func add(_ cells: String...) {
        rows.append(cells)
    }

    /// The table as lines, columns separated by two spaces, trailing spaces trimmed.
    ///
    /// When the table is wider than `width`, the widest columns are narrowed (to no less than
    /// ``minimumColumnWidth``) and their cells wrap onto continuation lines, at a space where
    /// there is one: a path or a fix command stays readable in 80 columns instead of running
    /// past the window's edge. With `width` nil (output not to a terminal), nothing wraps, so
    /// each row stays one line for `grep` and `cut`.
    func rendered(width: Int? = Terminal.outputWidth) -> String {
        let escapedRows = ([header] + rows).map { $0.map(Terminal.escaped) }
        var widths = Array(repeating: 0, count: header.count)
        for row in escapedRows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        if let width {
            let separators = 2 * max(0, widths.count - 1)
            let minimums = header.map { max(Self.minimumColumnWidth, Terminal.escaped($0).count) }
            // The widest column that can still give a character gives it, one at a time, so
            // narrow columns (ids, states) stay whole and long ones share the wrapping.
            while widths.reduce(separators, +) > width,
                  let widest = widths.indices.filter({ widths[$0] > minimums[$0] }).max(by: { widths[$0] < widths[$1] }) {
                widths[widest] -= 1
            }
        }
        var lines: [String] = []
        for row in escapedRows {
            let wrapped = row.enumerated().map { index, cell in
                index < widths.count ? Self.wrap(cell, width: widths[index]) : [cell]
            }
            let height = wrapped.map(\.count).max() ?? 1
            for lineIndex in 0..<height {
                var line = wrapped.enumerated().map { index, parts in
                    let part = lineIndex < parts.count ? parts[lineIndex] : ""
                    return index == wrapped.count - 1 ? part : part.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                }.joined(separator: "  ")
                while line.hasSuffix(" ") { line.removeLast() }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `cell` in pieces of at most `width` characters, broken after the last space that fits
    /// when there is one, else at the width.
    static func wrap(_ cell: String, width: Int) -> [String] {
        var pieces: [String] = []
        var rest = Substring(cell)
        while rest.count > width {
            let window = rest.prefix(width)
            let breakIndex = window.lastIndex(of: " ").map { rest.index(after: $0) } ?? window.endIndex
            let piece = rest[..<breakIndex]
            pieces.append(String(piece.hasSuffix(" ") ? piece.dropLast() : piece))
            rest = rest[breakIndex...]
        }
        pieces.append(String(rest))
        return pieces
    }

    func print() {
        Swift.print(rendered(), terminator: "")
    }
}
