// SPDX-License-Identifier: Apache-2.0

/// The few ANSI SGR styles the tables use, applied only when colour is on.
enum TextStyle: Sendable, Equatable {
    case bold
    case red
    case green
    case yellow

    /// The escape sequence that starts the style.
    var escape: String {
        switch self {
        case .bold: "\u{1B}[1m"
        case .red: "\u{1B}[31m"
        case .green: "\u{1B}[32m"
        case .yellow: "\u{1B}[33m"
        }
    }

    /// The escape sequence that ends any style.
    static let reset = "\u{1B}[0m"

    /// `text` in this style when `colour` is true, else `text` unchanged.
    func apply(_ text: String, colour: Bool) -> String {
        colour && !text.isEmpty ? escape + text + Self.reset : text
    }
}
