// SPDX-License-Identifier: Apache-2.0

/// Where the version of a unit comes from; a changed version makes the next start an update launch.
///
/// The configuration spells it `"executable"`, `"unit_file"`, `"environment:NAME"` or `"none"`; ``description``
/// gives that spelling back.
public enum VersionSource: Sendable, Hashable, CustomStringConvertible {
    /// A hash of the unit's main executable (the default).
    case executable
    /// A hash of the unit file and its drop-ins.
    case unitFile
    /// The value of one variable of the unit's `Environment=`.
    case environment(String)
    /// No version: a unit is never updated.
    case none

    /// Parses the configuration spelling. The keywords are matched in any letter case, the variable name exactly.
    ///
    /// - Parameter text: `"executable"`, `"unit_file"`, `"environment:NAME"` or `"none"`.
    /// - Throws: ``ConfigurationValueError`` naming the accepted spellings, or what is wrong with the variable name.
    public init(parsing text: String) throws(ConfigurationValueError) {
        let prefix = "environment:"
        if text.utf8.count >= prefix.utf8.count, text.prefix(prefix.count).lowercased() == prefix {
            let name = String(text.dropFirst(prefix.count))
            guard Self.isVariableName(name) else {
                throw ConfigurationValueError(
                    "expected \"environment:NAME\" with a variable name of letters, digits and '_' that does not "
                        + "start with a digit, found \"\(text)\""
                )
            }
            self = .environment(name)
            return
        }
        switch text.lowercased() {
        case "executable": self = .executable
        case "unit_file": self = .unitFile
        case "none": self = .none
        default:
            throw ConfigurationValueError(
                "expected \"executable\", \"unit_file\", \"environment:NAME\" or \"none\", found \"\(text)\""
            )
        }
    }

    public var description: String {
        switch self {
        case .executable: "executable"
        case .unitFile: "unit_file"
        case .environment(let name): "environment:\(name)"
        case .none: "none"
        }
    }

    /// systemd's rule for `Environment=` names (`env_name_is_valid`), limited to the portable shell alphabet so the
    /// name can also be looked up with `systemctl show -p Environment`.
    private static func isVariableName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                true
            default:
                false
            }
        }
    }
}
