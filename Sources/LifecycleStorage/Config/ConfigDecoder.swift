// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// Turns one parsed configuration document into a ``LifecycleConfiguration``, or the first problem in it.
///
/// Pure apart from the time-zone database lookup. Keys are visited in sorted order (a JSON object has none of its
/// own), so the same file always reports the same first error. `null` stands for "the built-in default" everywhere a
/// setting may appear, so a drop-in can undo a setting of the main file.
struct ConfigDecoder {
    let file: String

    /// Keys that may appear both at the top level and in a `watch` rule object.
    static let settingKeys = [
        "autotracking_enabled", "session_timeout", "tracked_lifecycle_events", "data_target", "version_source",
    ]
    static let topLevelKeys =
        settingKeys
        + ["watch", "state_directory", "bus", "time_zone", "log_level", "history_from_journal", "metrics_file",
            "archive_after_minutes", "archive_retention_days"]
        + crashLoopKeys
    static let crashLoopKeys = ["crash_loop_crashes", "crash_loop_minutes"]
    static let ruleKeys = ["pattern"] + settingKeys

    /// The largest timeout whose milliseconds still fit in 64 bits, so the engine's arithmetic cannot overflow.
    static let maximumSessionTimeoutMinutes = Int(Int64.max / 60_000)

    func configuration(from json: JSONValue) throws(ConfigError) -> LifecycleConfiguration {
        guard case .object(let object) = json else {
            throw invalid("", "expected a JSON object at the top level, found \(json.typeName)")
        }
        var configuration = LifecycleConfiguration()
        for key in object.keys.sorted() {
            let value = object[key]!
            guard Self.topLevelKeys.contains(key) else { throw unknownKey(key, known: Self.topLevelKeys) }
            if value == .null { continue }
            switch key {
            case "autotracking_enabled": configuration.defaults.autotrackingEnabled = try bool(value, at: key)
            case "session_timeout": configuration.defaults.sessionTimeoutMinutes = try minutes(value, at: key)
            case "tracked_lifecycle_events": configuration.defaults.trackedLifecycleEvents = try events(value, at: key)
            case "data_target": configuration.defaults.dataTarget = try dataTarget(value, at: key)
            case "version_source": configuration.defaultVersionSource = try versionSource(value, at: key)
            case "watch": configuration.watch = try watchRules(value, at: key)
            case "state_directory": configuration.stateDirectory = try absolutePath(value, at: key)
            case "bus": configuration.bus = try keyword(value, at: key, among: BusKind.allCases)
            case "time_zone": configuration.timeZone = try timeZone(value, at: key)
            case "history_from_journal": configuration.historyFromJournal = try bool(value, at: key)
            case "metrics_file": configuration.metricsFile = try metricsFile(value, at: key)
            case "archive_after_minutes": configuration.archiveAfterMinutes = try minutes(value, at: key, minusOne: "never")
            case "archive_retention_days": configuration.archiveRetentionDays = try days(value, at: key)
            case "crash_loop_crashes":
                // A record keeps only so many crash times: a larger threshold could never be reached.
                configuration.crashLoop.crashes = try count(value, at: key, in: 1...UnitRecord.recentCrashLimit)
            case "crash_loop_minutes":
                configuration.crashLoop.minutes = try count(value, at: key, in: 1...Self.maximumSessionTimeoutMinutes)
            default: configuration.logLevel = try keyword(value, at: key, among: LogLevel.allCases)
            }
        }
        return configuration
    }

    // MARK: - Watch rules

    private func watchRules(_ value: JSONValue, at path: String) throws(ConfigError) -> [WatchRule] {
        guard case .array(let items) = value else {
            throw invalid(path, "expected an array of unit patterns, found \(value.typeName)")
        }
        var rules: [WatchRule] = []
        for (index, item) in items.enumerated() {
            rules.append(try watchRule(item, at: "\(path)[\(index)]"))
        }
        return rules
    }

    private func watchRule(_ item: JSONValue, at path: String) throws(ConfigError) -> WatchRule {
        switch item {
        case .string(let text):
            return WatchRule(pattern: try pattern(text, at: path))
        case .object(let object):
            for key in object.keys.sorted() where !Self.ruleKeys.contains(key) {
                throw unknownKey("\(path).\(key)", known: Self.ruleKeys)
            }
            guard let patternValue = object["pattern"] else {
                throw invalid(path, "missing the required key \"pattern\"")
            }
            guard case .string(let text) = patternValue else {
                throw invalid("\(path).pattern", "expected a unit pattern string, found \(patternValue.typeName)")
            }
            var rule = WatchRule(pattern: try pattern(text, at: "\(path).pattern"))
            for key in object.keys.sorted() where key != "pattern" {
                let value = object[key]!
                let keyPath = "\(path).\(key)"
                if value == .null { continue }
                switch key {
                case "autotracking_enabled": rule.autotrackingEnabled = try bool(value, at: keyPath)
                case "session_timeout": rule.sessionTimeoutMinutes = try minutes(value, at: keyPath)
                case "tracked_lifecycle_events": rule.trackedLifecycleEvents = try events(value, at: keyPath)
                case "data_target": rule.dataTarget = try dataTarget(value, at: keyPath)
                default: rule.versionSource = try versionSource(value, at: keyPath)
                }
            }
            return rule
        default:
            throw invalid(path, "expected a unit pattern string or an object with \"pattern\", found \(item.typeName)")
        }
    }

    private func pattern(_ text: String, at path: String) throws(ConfigError) -> UnitPattern {
        do {
            return try UnitPattern(text)
        } catch {
            throw invalid(path, error.reason)
        }
    }

    // MARK: - Values

    private func bool(_ value: JSONValue, at path: String) throws(ConfigError) -> Bool {
        guard case .bool(let flag) = value else {
            throw invalid(path, "expected true or false, found \(value.typeName)")
        }
        return flag
    }

    /// - Parameter minusOne: what -1 means for the key, for the message of a value out of range.
    private func minutes(_ value: JSONValue, at path: String, minusOne: String = "no timeout") throws(ConfigError) -> Int {
        switch value {
        case .int(let raw):
            guard let minutes = Int(exactly: raw), minutes <= Self.maximumSessionTimeoutMinutes else {
                throw invalid(
                    path,
                    "\(raw) minutes is out of range (at most \(Self.maximumSessionTimeoutMinutes); "
                        + "use -1 for \(minusOne))"
                )
            }
            return minutes
        case .double(let number):
            throw invalid(path, "expected an integer number of minutes, found \(number)")
        default:
            throw invalid(path, "expected an integer number of minutes, found \(value.typeName)")
        }
    }

    /// A number of days, at most as many as ``maximumSessionTimeoutMinutes`` holds; -1 (any negative) for forever.
    private func days(_ value: JSONValue, at path: String) throws(ConfigError) -> Int {
        let maximum = Self.maximumSessionTimeoutMinutes / 1_440
        switch value {
        case .int(let raw):
            guard let days = Int(exactly: raw), days <= maximum else {
                throw invalid(path, "\(raw) days is out of range (at most \(maximum); use -1 for forever)")
            }
            return days
        case .double(let number):
            throw invalid(path, "expected an integer number of days, found \(number)")
        default:
            throw invalid(path, "expected an integer number of days, found \(value.typeName)")
        }
    }

    private func count(_ value: JSONValue, at path: String, in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        let expected = "an integer from \(range.lowerBound) to \(range.upperBound)"
        guard case .int(let raw) = value else { throw invalid(path, "expected \(expected), found \(value.typeName)") }
        guard let number = Int(exactly: raw), range.contains(number) else {
            throw invalid(path, "\(raw) is out of range (expected \(expected))")
        }
        return number
    }

    private func events(_ value: JSONValue, at path: String) throws(ConfigError) -> Set<LifecycleEvent> {
        guard case .array(let items) = value else {
            throw invalid(path, "expected an array of \"launch\", \"wake\" and \"sleep\", found \(value.typeName)")
        }
        var events = Set<LifecycleEvent>()
        for (index, item) in items.enumerated() {
            let expected = "expected \"launch\", \"wake\" or \"sleep\""
            guard case .string(let name) = item else {
                throw invalid("\(path)[\(index)]", "\(expected), found \(item.typeName)")
            }
            guard let event = LifecycleEvent(rawValue: name.lowercased()) else {
                throw invalid("\(path)[\(index)]", "\(expected), found \(quoted(name))")
            }
            events.insert(event)
        }
        return events
    }

    private func dataTarget(_ value: JSONValue, at path: String) throws(ConfigError) -> DataTarget {
        try keyword(value, at: path, among: DataTarget.allCases)
    }

    private func versionSource(_ value: JSONValue, at path: String) throws(ConfigError) -> VersionSource {
        guard case .string(let text) = value else {
            throw invalid(
                path,
                "expected \"executable\", \"unit_file\", \"environment:NAME\" or \"none\", found \(value.typeName)"
            )
        }
        do {
            return try VersionSource(parsing: text)
        } catch {
            throw invalid(path, error.reason)
        }
    }

    /// One of a fixed set of names, matched in any letter case.
    private func keyword<Keyword: RawRepresentable<String>>(
        _ value: JSONValue,
        at path: String,
        among choices: [Keyword]
    ) throws(ConfigError) -> Keyword {
        let names = choices.map { "\"\($0.rawValue)\"" }
        let expected = "expected " + names.dropLast().joined(separator: ", ") + " or " + names.last!
        guard case .string(let text) = value else { throw invalid(path, "\(expected), found \(value.typeName)") }
        guard let choice = choices.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
            throw invalid(path, "\(expected), found \(quoted(text))")
        }
        return choice
    }

    private func absolutePath(_ value: JSONValue, at path: String) throws(ConfigError) -> String {
        guard case .string(let text) = value else {
            throw invalid(path, "expected an absolute path, found \(value.typeName)")
        }
        guard text.hasPrefix("/"), !text.utf8.contains(0) else {
            throw invalid(path, "expected an absolute path, found \(quoted(text))")
        }
        return text
    }

    /// node_exporter's textfile collector reads only `*.prom` files: any other name would silently never be scraped.
    private func metricsFile(_ value: JSONValue, at path: String) throws(ConfigError) -> String {
        let file = try absolutePath(value, at: path)
        let name = file.split(separator: "/").last ?? ""
        guard name.hasSuffix(".prom"), name.count > ".prom".count, !file.hasSuffix("/") else {
            throw invalid(
                path, "expected a file name ending in \".prom\" (node_exporter reads no other), found \(quoted(file))"
            )
        }
        return file
    }

    private func timeZone(_ value: JSONValue, at path: String) throws(ConfigError) -> String {
        guard case .string(let name) = value else {
            throw invalid(path, "expected an IANA time zone name such as \"Europe/Berlin\", found \(value.typeName)")
        }
        do {
            // The same lookup the programs make later, so a name that passes here also works there.
            _ = try TimeZoneDatabase.system.zone(named: name)
        } catch {
            throw invalid(path, error.description)
        }
        return name
    }

    // MARK: - Errors

    private func invalid(_ path: String, _ reason: String) -> ConfigError {
        .invalidValue(file: file, key: path, reason: reason)
    }

    private func unknownKey(_ path: String, known: [String]) -> ConfigError {
        let key = path.split(separator: ".").last.map(String.init) ?? path
        return .unknownKey(file: file, key: path, suggestion: KeySuggestion.closest(to: key, among: known))
    }

    /// A string value as JSON would write it, so control characters and quotes stay visible in the message.
    private func quoted(_ text: String) -> String {
        var writer = JSONWriter()
        writer.string(text)
        return writer.string
    }
}
