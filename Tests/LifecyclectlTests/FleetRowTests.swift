// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema
import LifecycleStorage
import Testing

@testable import lifecyclectl

/// `lifecyclectl status --directory`: one row per machine and unit, with the figures of `status`, from collected
/// dispatches.
struct FleetRowTests {
    static let idA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    static let idB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
    static let hour: Milliseconds = 3_600_000
    static let start = TimestampParser.milliseconds(from: "2026-03-02T08:00:00.000Z")!

    /// One unit's history on one machine, run through the engine as lifecycled runs it: each dispatch's journal
    /// entry as lifecycled writes it, read back, and the record its state file would hold at the end.
    private struct History {
        let engine = LifecycleEngine(settings: LifecycleSettings(autotrackingEnabled: true), calendar: LocalCalendar(timeZone: .utc))
        var record: UnitRecord
        var dispatches: [JournaledDispatch] = []
        let host: String
        let machineID: String

        init(unit: String, host: String, machineID: String) {
            record = UnitRecord(unit: unit)
            self.host = host
            self.machineID = machineID
        }

        mutating func track(_ event: LifecycleEvent, at time: Milliseconds, version: String? = nil, id: String) {
            // A new InvocationID is a new run of the unit, as a new process is for the reference.
            if record.invocationID != id { record.state.hasLaunchedInRun = false }
            let dispatch = try! engine.track(
                event, at: time, state: &record.state, version: version, origin: .autotracked
            ).get()!
            record.runEnded = false
            record.invocationID = id
            append(dispatch, kind: DispatchKind(dispatch: dispatch, isCrashNotice: false), id: id)
        }

        /// A failed run: `code` 1 for an exit status, 2 for a signal (systemd's `CLD_EXITED`, `CLD_KILLED`).
        mutating func crash(at time: Milliseconds, result: String, code: Int32, status: Int32, id: String) {
            var data = CrashDetails(result: result, execMainCode: code, execMainStatus: status).data
            data["autotracked"] = .bool(true)
            let notice = Dispatch(name: "crash", time: time, lifecycle: nil, customData: data)
            record.runEnded = true
            record.noteCrash(notice)
            append(notice, kind: .crash, id: id)
        }

        mutating func custom(_ name: String, at time: Milliseconds) {
            append(engine.trackCustom(name, at: time, state: record.state), kind: .custom, id: nil)
        }

        private mutating func append(_ dispatch: Dispatch, kind: DispatchKind, id: String?) {
            record.sequence += 1
            let entry = DispatchJournalEntry(
                unit: record.unit, dispatch: dispatch, invocationID: id, sequence: record.sequence, kind: kind,
                version: record.state.version
            )
            var fields = Dictionary(entry.fields.map { ($0.name, $0.value) }) { first, _ in first }
            fields[DispatchField.hostname] = host
            fields[DispatchField.machineID] = machineID
            dispatches.append(JournaledDispatch(fields: fields)!)
        }
    }

    /// app.service on web-1: launched, slept, woke again (running at `now`); db.service on web-2: launched, crashed
    /// twice in a row (crash-looping with a rule of 2 in 4 hours).
    private func histories() -> [History] {
        var app = History(unit: "app.service", host: "web-1", machineID: Self.idA)
        app.track(.launch, at: Self.start, version: "1.0", id: "a1")
        app.track(.sleep, at: Self.start + Self.hour, id: "a1")
        app.custom("deploy", at: Self.start + Self.hour + 1_000)
        app.track(.wake, at: Self.start + 2 * Self.hour, id: "a2")
        var db = History(unit: "db.service", host: "web-2", machineID: Self.idB)
        db.track(.launch, at: Self.start, version: "2.0", id: "d1")
        db.crash(at: Self.start + 60_000, result: "signal", code: 2, status: 9, id: "d1")
        db.track(.launch, at: Self.start + 120_000, id: "d2")
        db.crash(at: Self.start + 180_000, result: "exit-code", code: 1, status: 7, id: "d2")
        return [app, db]
    }

    @Test("every unit's object has the keys and values of status --json for the same history, plus the machine")
    func sameAsStateFile() throws {
        let now = Self.start + 3 * Self.hour + 1_500
        let rule = CrashLoopRule(crashes: 2, minutes: 240)
        let histories = histories()
        // The dispatches arrive in any order, one of them twice.
        let collected = histories.flatMap(\.dispatches).reversed() + [histories[0].dispatches[1]]
        let rows = FleetRow.rows(from: Array(collected), now: now, crashLoop: rule)
        #expect(rows.map { "\($0.machine) \($0.machineID) \($0.unit)" } == [
            "web-1 \(Self.idA) app.service", "web-2 \(Self.idB) db.service",
        ])
        for (row, history) in zip(rows, histories) {
            let local = UnitSummary(
                record: history.record, now: now, calendar: LocalCalendar(timeZone: .utc), crashLoop: rule
            )
            #expect(row.summary == local)
            let document = try JSONParser.parse(FleetJSON.render([row]))
            guard case .array(let units)? = document.objectValue?["units"], case .object(var fleet)? = units.first else {
                Issue.record("no unit object")
                continue
            }
            #expect(fleet.removeValue(forKey: "machine") == .string(history.host))
            #expect(fleet.removeValue(forKey: "machine_id") == .string(history.machineID))
            #expect(JSONValue.object(fleet) == StatusJSON.object(local))
        }
        #expect(rows[0].summary.runState == .running && rows[0].summary.totalSecondsAwake == 3_600 + 3_601)
        #expect(rows[0].summary.lastEvent == .wake && rows[0].summary.sequence == 4)
        #expect(rows[1].summary.runState == .failed && rows[1].summary.isCrashLooping)
        #expect(rows[1].summary.crashes == 2 && rows[1].summary.failure?.statusText == "7")
    }

    @Test("machines with one hostname stay apart by machine id")
    func repeatedHostnames() {
        let rows = FleetRow.rows(
            from: Fixtures.journaled([
                ["_HOSTNAME": "localhost", "_MACHINE_ID": Self.idA, "LIFECYCLE_EVENT": "launch", "LIFECYCLE_SEQUENCE": "1"],
                ["_HOSTNAME": "localhost", "_MACHINE_ID": Self.idB, "LIFECYCLE_EVENT": "sleep", "LIFECYCLE_SEQUENCE": "1"],
            ]),
            now: Self.start, crashLoop: CrashLoopRule()
        )
        #expect(rows.map(\.machineID) == [Self.idA, Self.idB])
    }

    @Test("lifecycled's own entries are no dispatch; a unit with custom events only has no state and no counts")
    func nonDispatches() {
        #expect(JournaledDispatch(fields: ["_HOSTNAME": "web-1", "MESSAGE": "Tracking: Watching 3 loaded units"]) == nil)
        let rows = FleetRow.rows(
            from: Fixtures.journaled([
                ["LIFECYCLE_EVENT": "deploy", "LIFECYCLE_SEQUENCE": "1", "LIFECYCLE_PAYLOAD": "not json"],
                // A custom event named like a lifecycle event is still a custom event (its MESSAGE_ID says so).
                ["LIFECYCLE_EVENT": "launch", "LIFECYCLE_SEQUENCE": "2", "MESSAGE_ID": DispatchKind.custom.messageID],
            ]),
            now: Self.start, crashLoop: CrashLoopRule()
        )
        #expect(rows.count == 1)
        #expect(rows[0].summary.runState == nil && rows[0].summary.lastEvent == nil)
        #expect(rows[0].summary.launches == 0 && rows[0].summary.sequence == 2)
    }

    @Test("the table: MACHINE, then the columns of status, and a footer counting machines")
    func table() {
        let now = Self.start + 3 * Self.hour
        let rows = FleetRow.rows(from: histories().flatMap(\.dispatches), now: now, crashLoop: CrashLoopRule())
        let lines = FleetTable.render(
            rows, now: now, colour: false, legend: true, crashLoop: CrashLoopRule(), emptyMessage: ""
        ).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0].hasPrefix("MACHINE UNIT        STATE   RESULT"))
        #expect(lines[1].hasPrefix("web-1   app.service running -"))
        #expect(lines[2].hasPrefix("web-2   db.service  failed  exit-code, status=7"))
        #expect(lines.contains("2 units on 2 machines listed."))
    }
}
