// SPDX-License-Identifier: Apache-2.0

/// A plain-text table in the manner of `systemctl list-units`: one space between columns, numbers right-aligned,
/// no trailing blanks, colour codes never counted as width.
struct TextTable: Sendable {
    /// Where a column's cells sit within its width.
    enum Alignment: Sendable {
        case left
        case right
    }

    /// A column: its title (shown in the header) and alignment.
    struct Column: Sendable {
        var title: String
        var alignment: Alignment
    }

    /// One cell: its text and, optionally, the style it is shown in when colour is on.
    struct Cell: Sendable, ExpressibleByStringLiteral {
        var text: String
        var style: TextStyle?

        init(_ text: String, style: TextStyle? = nil) {
            self.text = text
            self.style = style
        }

        init(stringLiteral text: String) {
            self.init(text)
        }
    }

    let columns: [Column]
    private(set) var rows: [[Cell]] = []

    /// A table with `columns` and no rows.
    init(columns: [Column]) {
        self.columns = columns
    }

    /// Appends a row; it must have one cell per column.
    mutating func append(_ row: [Cell]) {
        precondition(row.count == columns.count, "a row needs one cell per column")
        rows.append(row)
    }

    /// The table's lines, without newlines.
    ///
    /// - Parameters:
    ///   - header: true to start with the column titles (in bold when colour is on).
    ///   - colour: true to apply the cells' styles.
    func lines(header: Bool, colour: Bool) -> [String] {
        var widths = columns.map { header ? $0.title.count : 0 }
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.text.count) }
        }
        var lines: [String] = []
        if header {
            lines.append(line(columns.map { Cell($0.title, style: .bold) }, widths: widths, colour: colour))
        }
        for row in rows { lines.append(line(row, widths: widths, colour: colour)) }
        return lines
    }

    private func line(_ cells: [Cell], widths: [Int], colour: Bool) -> String {
        var text = ""
        for (index, cell) in cells.enumerated() {
            if index > 0 { text += " " }
            let padding = String(repeating: " ", count: widths[index] - cell.text.count)
            let styled = cell.style?.apply(cell.text, colour: colour) ?? cell.text
            text += columns[index].alignment == .left ? styled + padding : padding + styled
        }
        // Padding is plain spaces outside any escape sequence, so trimming it cannot cut a style in half.
        while text.last == " " { text.removeLast() }
        return text
    }
}
