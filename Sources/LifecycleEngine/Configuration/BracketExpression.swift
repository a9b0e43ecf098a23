// SPDX-License-Identifier: Apache-2.0

/// One `[...]` of a ``UnitPattern``: a set of characters, possibly negated, read the way glibc's `fnmatch` reads it
/// in the C locale.
struct BracketExpression: Sendable {
    enum Member: Sendable {
        case scalar(Unicode.Scalar)
        /// An inclusive range by code point, which is the C locale's collation order; a reversed range is empty.
        case range(Unicode.Scalar, Unicode.Scalar)
        case characterClass(CharacterClass)
    }

    enum ParseResult {
        /// The expression and the index just past its closing `]`.
        case parsed(BracketExpression, next: Int)
        case invalid(reason: String)
    }

    var isNegated: Bool
    var members: [Member]

    func matches(_ scalar: Unicode.Scalar) -> Bool {
        let isMember = members.contains { member in
            switch member {
            case .scalar(let s): s == scalar
            case .range(let low, let high): low.value <= scalar.value && scalar.value <= high.value
            case .characterClass(let characterClass): characterClass.contains(scalar)
            }
        }
        return isMember != isNegated
    }

    /// Parses the bracket expression whose `[` is at `start`.
    static func parse(_ pattern: [Unicode.Scalar], openingAt start: Int) -> ParseResult {
        let unclosed = ParseResult.invalid(
            reason: "the '[' at character \(start + 1) has no closing ']' (a unit name never contains '[')"
        )
        var index = start + 1
        var expression = BracketExpression(isNegated: false, members: [])
        if index < pattern.count, pattern[index] == "!" || pattern[index] == "^" {
            expression.isNegated = true
            index += 1
        }
        var isFirst = true
        while index < pattern.count {
            let scalar = pattern[index]
            if scalar == "]", !isFirst {
                return .parsed(expression, next: index + 1)
            }
            isFirst = false
            if scalar == "[", index + 1 < pattern.count, [":", ".", "="].contains(pattern[index + 1]) {
                let delimiter = pattern[index + 1]
                guard delimiter == ":" else {
                    return .invalid(
                        reason: "collating symbols and equivalence classes ('[\(delimiter)') are not supported"
                    )
                }
                guard let end = closing(of: ":", in: pattern, from: index + 2) else { return unclosed }
                let name = String(String.UnicodeScalarView(pattern[(index + 2)..<end]))
                guard let characterClass = CharacterClass(rawValue: name) else {
                    return .invalid(reason: "unknown character class \"[:\(name):]\"")
                }
                expression.members.append(.characterClass(characterClass))
                index = end + 2
                continue
            }
            // `a-z` is a range unless the `-` is the last character before `]`.
            if index + 2 < pattern.count, pattern[index + 1] == "-", pattern[index + 2] != "]" {
                expression.members.append(.range(scalar, pattern[index + 2]))
                index += 3
            } else {
                expression.members.append(.scalar(scalar))
                index += 1
            }
        }
        return unclosed
    }

    /// The index of the `delimiter` of a closing `delimiter]`, searching from `start`.
    private static func closing(of delimiter: Unicode.Scalar, in pattern: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start
        while index + 1 < pattern.count {
            if pattern[index] == delimiter, pattern[index + 1] == "]" { return index }
            index += 1
        }
        return nil
    }
}

/// The POSIX character classes of the C locale, where only ASCII characters belong to any class.
enum CharacterClass: String, Sendable {
    case alnum, alpha, blank, cntrl, digit, graph, lower, print, punct, space, upper, xdigit

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return false }
        let v = scalar.value
        let isDigit = (0x30...0x39).contains(v)
        let isUpper = (0x41...0x5A).contains(v)
        let isLower = (0x61...0x7A).contains(v)
        let isGraph = (0x21...0x7E).contains(v)
        switch self {
        case .alnum: return isDigit || isUpper || isLower
        case .alpha: return isUpper || isLower
        case .blank: return v == 0x20 || v == 0x09
        case .cntrl: return v < 0x20 || v == 0x7F
        case .digit: return isDigit
        case .graph: return isGraph
        case .lower: return isLower
        case .print: return isGraph || v == 0x20
        case .punct: return isGraph && !(isDigit || isUpper || isLower)
        case .space: return v == 0x20 || (0x09...0x0D).contains(v)
        case .upper: return isUpper
        case .xdigit: return isDigit || (0x41...0x46).contains(v) || (0x61...0x66).contains(v)
        }
    }
}
