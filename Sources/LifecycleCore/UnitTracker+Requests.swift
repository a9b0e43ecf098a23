// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema
import LifecycleStorage

/// Why a manual or custom event sent to lifecycled was refused. Nothing is recorded for a refused event.
public enum EventRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The unit matches no `watch` pattern of the configuration.
    case unknownUnit(String)
    /// The engine refused the event: manualTrackNotAllowed or invalidEventOrder.
    case refused(LifecycleError)
    /// The request itself is malformed; the reason says how.
    case invalidArgument(String)
    /// lifecycled is stopping: the request came, or was still waiting for a recovery, when SIGTERM did.
    case stopping
    /// The unit's archived record could not be read: recording the event on a fresh record would number and count
    /// it from 1 again.
    case archiveUnreadable(String)

    public var description: String {
        switch self {
        case .unknownUnit(let unit): "Unit \(unit) is not watched by lifecycled (no pattern in \"watch\" matches it)."
        case .refused(let error): error.description
        case .invalidArgument(let reason): reason
        case .stopping: "lifecycled is stopping: the event was not recorded; send it again once lifecycled runs."
        case .archiveUnreadable(let unit):
            "The archive that may hold the record of \(unit) cannot be read (see lifecycled's log): the event was not "
                + "recorded, so that the unit's counters and numbers do not start again; send it again later."
        }
    }
}

extension UnitTracker {
    /// Limits on what a request may carry, so that a caller cannot make the daemon store or log unbounded data.
    public static let maximumEventNameLength = 64
    public static let maximumDataKeys = 64
    public static let maximumDataBytes = 8_192

    /// A manual launch, wake or sleep, as a script or a container reports its own lifecycle.
    ///
    /// A manual launch always begins a new run: a caller reporting a launch is a new process, so a launch after a run
    /// that never slept counts as a crash, as a new process does in the reference module.
    public mutating func manual(
        _ event: LifecycleEvent,
        unit: String,
        data: [String: JSONValue],
        now: Milliseconds
    ) -> Result<[Effect], EventRequestError> {
        if let problem = problem(unit: unit, event: event.rawValue, data: data) { return .failure(problem) }
        let stored = records[unit] ?? UnitRecord(unit: unit)
        var record = stored
        if event == .launch { record.state.hasLaunchedInRun = false }
        let engine = engine(for: unit)
        switch engine.track(event, at: now, state: &record.state, data: data, origin: .manual) {
        case .failure(let error):
            return .failure(.refused(error))
        case .success(let dispatch):
            return .success(commit(record, replacing: stored, dispatch: dispatch, kind: DispatchKind(rawValue: event.rawValue)!))
        }
    }

    /// A custom event; it carries the unit's lifecycle data when the unit's `data_target` is `allEvents`.
    public mutating func custom(
        _ name: String,
        unit: String,
        data: [String: JSONValue],
        now: Milliseconds
    ) -> Result<[Effect], EventRequestError> {
        if let problem = problem(unit: unit, event: name, data: data) { return .failure(problem) }
        let stored = records[unit] ?? UnitRecord(unit: unit)
        let engine = engine(for: unit)
        let dispatch = engine.trackCustom(name, at: now, state: stored.state, data: data)
        return .success(commit(stored, replacing: stored, dispatch: dispatch, kind: .custom))
    }

    private func problem(unit: String, event: String, data: [String: JSONValue]) -> EventRequestError? {
        if let reason = UnitTracker.invalidUnitNameReason(unit) { return .invalidArgument(reason) }
        guard configuration.isWatched(unit) else { return .unknownUnit(unit) }
        if let reason = Self.invalidEventNameReason(event) { return .invalidArgument(reason) }
        guard data.count <= Self.maximumDataKeys else {
            return .invalidArgument("Too much data: \(data.count) keys, at most \(Self.maximumDataKeys).")
        }
        var writer = JSONWriter()
        writer.value(.object(data))
        guard writer.bytes.count <= Self.maximumDataBytes else {
            return .invalidArgument("Too much data: \(writer.bytes.count) bytes of JSON, at most \(Self.maximumDataBytes).")
        }
        return nil
    }

    /// Why `name` cannot be a unit name, or nil when it can (it also names the unit's state file).
    public static func invalidUnitNameReason(_ name: String) -> String? {
        do {
            try StateStore.validateUnitName(name)
            return nil
        } catch {
            return "Invalid unit name \"\(name)\": \(error)"
        }
    }

    /// Why `name` cannot name an event, or nil when it can: 1 to 64 printable ASCII characters without spaces.
    public static func invalidEventNameReason(_ name: String) -> String? {
        let isPrintable = name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
        guard !name.isEmpty, name.utf8.count <= maximumEventNameLength, isPrintable else {
            return "Invalid event name \"\(name)\": use 1 to \(maximumEventNameLength) printable ASCII characters without spaces."
        }
        return nil
    }
}
