/// Human output: a header row and aligned columns, every cell escaped.
///
/// Cells are escaped here, at the one place text reaches the terminal, so no command can forget
/// to escape a name that came from disk.
struct Table {
    let header: [String]
    private(set) var rows: [[String]] = []

    init(_ header: String...) {
        self.header = header
    }

    mutating func add(_ cells: String...) {
        rows.append(cells)
    }

    /// The table as lines, columns separated by two spaces, trailing spaces trimmed.
    func rendered() -> String {
        let escapedRows = ([header] + rows).map { $0.map(Terminal.escaped) }
        var widths = Array(repeating: 0, count: header.count)
        for row in escapedRows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        return escapedRows.map { row in
            var line = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }.joined(separator: "\n") + "\n"
    }

    func print() {
        Swift.print(rendered(), terminator: "")
    }
}
