// SPDX-License-Identifier: Apache-2.0

/// Lets options come before the verb, as with systemctl (`lifecyclectl -v launch job`, `lifecyclectl --json status`).
///
/// swift-argument-parser reads options before a subcommand's name as the root command's own, and the root has none,
/// so such a line used to be refused with status's usage. The options every command defines for itself (see
/// ``valueOptions``) are moved after the verb instead; the verb then accepts or refuses them as usual.
enum ArgumentOrder {
    /// The options that take a value as the next argument (when not written `--option=value`), so that the value is
    /// moved along with its option and never taken for the verb.
    static let valueOptions: Set<String> = [
        "--config", "--state-directory", "--timezone", "--bus-address", "-n", "--lines", "--since",
    ]

    /// `arguments` with the options before the first verb of `verbs` moved right after it; unchanged when no verb
    /// follows the leading options (then the default command, status, parses them), or when `--` comes first.
    static func verbFirst(_ arguments: [String], verbs: Set<String>) -> [String] {
        var index = 0
        while index < arguments.count, arguments[index].hasPrefix("-"), arguments[index] != "--" {
            index += valueOptions.contains(arguments[index]) ? 2 : 1
        }
        guard index > 0, index < arguments.count, verbs.contains(arguments[index]) else { return arguments }
        return [arguments[index]] + arguments[..<index] + arguments[(index + 1)...]
    }
}
