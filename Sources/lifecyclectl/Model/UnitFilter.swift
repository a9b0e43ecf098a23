// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage

/// Which units `lifecyclectl status PATTERN… [--failed]` lists, in the manner of `systemctl status` and
/// `systemctl list-units`.
///
/// An argument with a glob character (`*`, `?`, `[`) is a pattern, matched against full unit names exactly as the
/// configuration's `watch` patterns are (`nginx*` matches `nginx.service` and `nginx-cache.service`). Any other
/// argument is a unit name, completed as systemctl completes it (`nginx` is `nginx.service`); a name that has no
/// state file is reported, a pattern that matches nothing is not (as with systemctl).
struct UnitFilter: Sendable {
    /// The globs among the arguments.
    let patterns: [UnitPattern]
    /// The plain unit names among the arguments, completed with their type suffix.
    let names: [String]
    /// True to keep only units whose last run failed (`--failed`).
    let failedOnly: Bool

    /// Parses the command-line arguments.
    ///
    /// - Throws: `ValidationError` (exit status 64) naming an invalid unit name or pattern.
    init(arguments: [String], failedOnly: Bool) throws(ValidationError) {
        var patterns: [UnitPattern] = []
        var names: [String] = []
        for argument in arguments {
            if argument.contains(where: { $0 == "*" || $0 == "?" || $0 == "[" }) {
                do {
                    patterns.append(try UnitPattern(argument))
                } catch {
                    throw ValidationError("Invalid unit pattern argument: \(error.reason).")
                }
            } else {
                names.append(try UnitName.normalize(argument))
            }
        }
        self.patterns = patterns
        self.names = names
        self.failedOnly = failedOnly
    }

    /// The filter as the user gave it, for messages: `'nginx*' or 'cron.service', failed`.
    var description: String {
        var parts = (patterns.map(\.text) + names).map { "'\($0)'" }.joined(separator: " or ")
        if failedOnly { parts += parts.isEmpty ? "--failed" : " (--failed)" }
        return parts
    }

    /// True when no argument narrows the list by name.
    var selectsEveryName: Bool { patterns.isEmpty && names.isEmpty }

    /// True when `record` is listed.
    func includes(_ record: UnitRecord) -> Bool {
        if failedOnly, RunState(record: record) != .failed { return false }
        return includesName(record.unit)
    }

    /// True when the arguments select `unit` by name (every unit when there is none); `--failed` is the caller's.
    func includesName(_ unit: String) -> Bool {
        selectsEveryName || names.contains(unit) || patterns.contains { $0.matches(unit) }
    }

    /// The plain names among the arguments that no state file has, in argument order.
    func missingNames(in records: [UnitRecord]) -> [String] {
        missingNames(among: records.map(\.unit))
    }

    /// The plain names among the arguments that are not in `units`, in argument order.
    func missingNames(among units: [String]) -> [String] {
        let known = Set(units)
        return names.filter { !known.contains($0) }
    }
}
