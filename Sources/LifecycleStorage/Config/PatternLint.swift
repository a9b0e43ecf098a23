// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// Finds `watch` patterns that are valid globs but cannot do what was meant: ones that can never match a unit name,
/// and `*`, which matches every unit.
///
/// What a unit name can be is fixed by systemd.unit(5): letters, digits and `:-_.\@`, ending in `.` and a unit type
/// (`.service`, `.socket`, …). So a pattern whose literal characters include anything else, such as a space, or
/// whose end can be no unit type's end (`nc-web`), never matches.
enum PatternLint {
    /// The unit types a name can end in.
    static let unitTypes = [
        "service", "socket", "target", "device", "mount", "automount", "swap", "timer", "path", "slice", "scope",
    ]

    /// What is wrong with `pattern`, or nil when nothing is.
    static func warning(for pattern: String) -> String? {
        let quoted = "pattern \"\(pattern)\""
        if !pattern.isEmpty, pattern.allSatisfy({ $0 == "*" }) {
            return "\(quoted) matches every unit, also each transient run-*.service: the state files would keep "
                + "growing; name the units or a family of them, such as \"nginx*.service\""
        }
        var insideBracket = false
        var tail = ""
        for character in pattern {
            if insideBracket {
                if character == "]" { insideBracket = false }
                continue
            }
            switch character {
            case "*", "?": tail = ""
            case "[":
                insideBracket = true
                tail = ""
            default:
                guard isUnitNameCharacter(character) else {
                    return "\(quoted) can never match a unit name: \(describe(character)) is not allowed in unit names"
                }
                tail.append(character)
            }
        }
        let couldEnd = unitTypes.contains { type in
            let ending = "." + type
            return ending.hasSuffix(tail) || tail.hasSuffix(ending)
        }
        guard couldEnd else {
            let hint = pattern.contains(".") ? "" : " (did you mean \"\(pattern).service\"?)"
            return "\(quoted) can never match a unit name: unit names end in a type such as .service\(hint)"
        }
        return nil
    }

    private static func isUnitNameCharacter(_ character: Character) -> Bool {
        guard character.isASCII else { return false }
        return character.isLetter || character.isNumber || ":-_.\\@".contains(character)
    }

    private static func describe(_ character: Character) -> String {
        switch character {
        case " ": "a space"
        case "\t": "a tab"
        default: "'\(character)'"
        }
    }
}
