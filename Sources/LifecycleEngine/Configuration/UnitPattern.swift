// SPDX-License-Identifier: Apache-2.0

/// A glob over unit names, matched the way systemd matches unit patterns (`systemctl list-units 'getty@*'`,
/// `ListUnitsByPatterns`): `fnmatch(3)` with `FNM_NOESCAPE` and no other flag.
///
/// - `*` matches any run of characters, including none; `?` matches exactly one character.
/// - `[abc]`, `[a-z]`, `[!a-z]` (also `[^a-z]`) and `[[:digit:]]` match one character of a set; a `]` right after the
///   opening `[` (or `[!`) is a member, and so is a `-` first or last.
/// - A backslash is an ordinary character (`FNM_NOESCAPE`), as it is in escaped unit names such as `dev-disk-by\x2did`.
/// - Nothing is special about `/` or a leading `.`, since unit names are not paths.
///
/// Creating a pattern validates it: it must be non-empty, at most 255 bytes, contain no `/` and no control character
/// (a unit name never does), and every `[` must be closed, because a bracket that glob matching would read as a
/// literal `[` can never match a unit name and is almost certainly a typo.
public struct UnitPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written in the configuration.
    public let text: String
    private let tokens: [Token]
    /// The UTF-8 of the literal characters the pattern begins with: a name that does not begin with them cannot
    /// match, which rejects most names of other units without decoding them.
    private let literalPrefix: [UInt8]

    /// Validates and compiles a pattern.
    ///
    /// - Parameter text: the glob, e.g. `"getty@*.service"`.
    /// - Throws: ``ConfigurationValueError`` saying what is wrong with the pattern.
    public init(_ text: String) throws(ConfigurationValueError) {
        if let reason = Self.invalidityReason(text) {
            throw ConfigurationValueError("invalid unit pattern \"\(text)\": \(reason)")
        }
        let tokens = Self.compile(Array(text.unicodeScalars))
        self.text = text
        self.tokens = tokens
        self.literalPrefix = Self.literalPrefix(of: tokens)
    }

    /// The UTF-8 of the literal tokens `tokens` begins with.
    private static func literalPrefix(of tokens: [Token]) -> [UInt8] {
        var prefix = String.UnicodeScalarView()
        for token in tokens {
            guard case .literal(let scalar) = token else { break }
            prefix.append(scalar)
        }
        return Array(String(prefix).utf8)
    }

    /// True if `unitName` matches the whole pattern.
    public func matches(_ unitName: String) -> Bool {
        guard unitName.utf8.starts(with: literalPrefix) else { return false }
        // Unit names are ASCII: matched on their bytes where they lie, without decoding (every signal of every unit
        // is matched, docs/PERFORMANCE.md); any other name by its Unicode scalars.
        let asciiMatch = unitName.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            return matches(count: bytes.count) { Unicode.Scalar(bytes[$0]) }
        }
        if let asciiMatch, let matched = asciiMatch { return matched }
        let name = Array(unitName.unicodeScalars)
        return matches(count: name.count) { name[$0] }
    }

    /// True if the name of `count` characters, character `n` being `character(n)`, matches the whole pattern.
    private func matches(count: Int, _ character: (Int) -> Unicode.Scalar) -> Bool {
        // Iterative glob matching: on a mismatch, retry from the most recent `*` with one more character swallowed.
        // Only the last star needs revisiting, because a star matches any run of characters, so this is linear in
        // practice and never recurses.
        var t = 0
        var n = 0
        var starToken: Int?
        var starName = 0
        while n < count {
            if t < tokens.count {
                switch tokens[t] {
                case .star:
                    starToken = t
                    starName = n
                    t += 1
                    continue
                case .anyCharacter:
                    t += 1
                    n += 1
                    continue
                case .literal(let scalar) where scalar == character(n):
                    t += 1
                    n += 1
                    continue
                case .bracket(let bracket) where bracket.matches(character(n)):
                    t += 1
                    n += 1
                    continue
                case .literal, .bracket:
                    break
                }
            }
            guard let star = starToken else { return false }
            starName += 1
            t = star + 1
            n = starName
        }
        while t < tokens.count, case .star = tokens[t] { t += 1 }
        return t == tokens.count
    }

    public var description: String { text }

    public static func == (lhs: UnitPattern, rhs: UnitPattern) -> Bool { lhs.text == rhs.text }

    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// Why `text` is not a valid unit pattern, or nil if it is one.
    ///
    /// - Parameter text: a candidate pattern.
    /// - Returns: a reason such as `must not contain '/'`, or nil.
    public static func invalidityReason(_ text: String) -> String? {
        if text.isEmpty { return "must not be empty" }
        if text.utf8.count > 255 { return "longer than 255 bytes, the longest possible unit name" }
        if text.contains("/") { return "must not contain '/'" }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "must not contain control characters"
        }
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            guard scalars[index] == "[" else {
                index += 1
                continue
            }
            switch BracketExpression.parse(scalars, openingAt: index) {
            case .parsed(_, let next): index = next
            case .invalid(let reason): return reason
            }
        }
        return nil
    }

    private static func compile(_ scalars: [Unicode.Scalar]) -> [Token] {
        var tokens: [Token] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "*":
                // Consecutive stars match the same as one; collapsing them keeps backtracking cheap.
                if case .star? = tokens.last {} else { tokens.append(.star) }
                index += 1
            case "?":
                tokens.append(.anyCharacter)
                index += 1
            case "[":
                if case .parsed(let bracket, let next) = BracketExpression.parse(scalars, openingAt: index) {
                    tokens.append(.bracket(bracket))
                    index = next
                } else {
                    // fnmatch reads an unclosed `[` as itself; validation refuses it, this keeps compile total.
                    tokens.append(.literal(scalar))
                    index += 1
                }
            default:
                tokens.append(.literal(scalar))
                index += 1
            }
        }
        return tokens
    }

    private enum Token: Sendable {
        case literal(Unicode.Scalar)
        case anyCharacter
        case star
        case bracket(BracketExpression)
    }
}
