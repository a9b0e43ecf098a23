// SPDX-License-Identifier: Apache-2.0

/// Runs the engine over a JSON-lines history with in-memory state: `lifecyclectl replay` without its I/O.
///
/// Each input line is one manual or custom event (`"event"`) or one observation for the autotracker (`"observe"`); each
/// dispatch becomes one output line, and each refused event an error line (docs/lifecyclectl.md, "Replay a history").
public struct ReplaySession {
    private struct Unit {
        var state = UnitState()
        var autotracker: Autotracker
    }

    private let calendar: LocalCalendar
    private let settings: (String) -> LifecycleSettings
    private var units: [String: Unit] = [:]

    /// - Parameter settings: the settings of a unit, by name (the configuration's defaults and overrides).
    public init(calendar: LocalCalendar, settings: @escaping (String) -> LifecycleSettings) {
        self.calendar = calendar
        self.settings = settings
    }

    /// The state of `unit` after the lines processed so far.
    public func state(of unit: String) -> UnitState? { units[unit]?.state }

    /// Processes one input line and appends its output lines (each ending in a newline) to `output`.
    public mutating func process(line: some Collection<UInt8>, into output: inout JSONWriter) throws(ReplayInputError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw ReplayInputError(error.description)
        }
        let line = try ReplayLine(value)
        var unit = units[line.unit] ?? Unit(autotracker: Autotracker(engine: engine(for: line.unit)))
        defer { units[line.unit] = unit }
        if line.newProcess { unit.state.hasLaunchedInRun = false }
        switch line.action {
        case .event(let name):
            let engine = unit.autotracker.engine
            guard let event = LifecycleEvent(rawValue: name) else {
                Self.write(engine.trackCustom(name, at: line.time, state: unit.state, data: line.data), unit: line.unit, &output)
                return
            }
            switch engine.track(event, at: line.time, state: &unit.state, version: line.version, data: line.data) {
            case .success(let dispatch): if let dispatch { Self.write(dispatch, unit: line.unit, &output) }
            case .failure(let error): Self.writeError(error, event: name, unit: line.unit, &output)
            }
        case .observe(let observation):
            switch unit.autotracker.observe(observation, at: line.time, state: &unit.state) {
            case .tracked(_, let dispatch): if let dispatch { Self.write(dispatch, unit: line.unit, &output) }
            case .crashNotice(let dispatch): Self.write(dispatch, unit: line.unit, &output)
            case .refused(let event, let error): Self.writeError(error, event: event.rawValue, unit: line.unit, &output)
            case .ignored: break
            }
        }
    }

    private func engine(for unit: String) -> LifecycleEngine {
        LifecycleEngine(settings: settings(unit), calendar: calendar)
    }

    /// `{"unit":…,"event":…,"time":…,"data":{…}}`: lifecycle data points first, then the caller's data, which
    /// replaces a lifecycle key of the same name.
    static func write(_ dispatch: Dispatch, unit: String, _ out: inout JSONWriter) {
        out.raw("{\"unit\":")
        out.string(unit)
        out.raw(",\"event\":")
        out.string(dispatch.name)
        out.raw(",\"time\":")
        out.quotedDate(dispatch.time, .iso8601Milliseconds)
        out.raw(",\"data\":{")
        var first = true
        let mayOverride = dispatch.customDataMayReplaceLifecycle
        dispatch.lifecycle?.forEachField { key, field in
            if mayOverride, dispatch.customData[key.description] != nil { return }
            if !first { out.byte(UInt8(ascii: ",")) }
            first = false
            out.byte(UInt8(ascii: "\""))
            out.raw(key.name)
            out.raw("\":")
            out.field(field)
        }
        for key in dispatch.customData.keys.sorted() {
            if !first { out.byte(UInt8(ascii: ",")) }
            first = false
            out.string(key)
            out.byte(UInt8(ascii: ":"))
            out.value(dispatch.customData[key]!)
        }
        out.raw("}}\n")
    }

    static func writeError(_ error: LifecycleError, event: String, unit: String, _ out: inout JSONWriter) {
        out.raw("{\"unit\":")
        out.string(unit)
        out.raw(",\"event\":")
        out.string(event)
        out.raw(",\"error\":")
        out.string(error.rawValue)
        out.raw("}\n")
    }
}
