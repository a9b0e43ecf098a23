// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleSchema
import LifecycleEngine
import Testing

/// The journal schema of docs/journal.md, pinned field by field.
struct DispatchJournalEntryTests {
    static let invocation = "0123456789abcdef0123456789abcdef"

    /// An autotracker in UTC with the default settings, and a unit's state.
    struct Unit {
        var tracker = Autotracker(
            engine: LifecycleEngine(calendar: LocalCalendar(timeZone: TimeZoneRules.utc))
        )
        var state = UnitState()

        mutating func observe(_ observation: UnitObservation, _ time: String) -> Dispatch? {
            switch tracker.observe(observation, at: TimestampParser.milliseconds(from: time)!, state: &state) {
            case .tracked(_, let dispatch?), .crashNotice(let dispatch): dispatch
            default: nil
            }
        }
    }

    /// `NAME=value` lines, for readable comparisons.
    static func lines(_ entry: DispatchJournalEntry) -> [String] {
        entry.fields.map { "\($0.name)=\($0.value)" }
    }

    /// journald's rule: `[A-Z0-9_]`, not starting with `_` or a digit, at most 64 characters.
    static func journaldKeeps(_ name: String) -> Bool {
        guard let first = name.first, name.count <= 64, first != "_", !first.isNumber else { return false }
        return name.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }

    @Test("a launch that detects a crash after an update gives exactly these fields")
    func launchWithCrashAndUpdate() throws {
        var unit = Unit()
        _ = unit.observe(.runBegan(version: "1.0"), "2026-03-01T10:00:00.000Z")
        // The first run never slept: the next start is a launch that detects its crash, with a new version.
        let dispatchObserved = unit.observe(.runBegan(version: "2.0"), "2026-03-03T12:30:05.250Z")
        let dispatch = try #require(dispatchObserved)
        let kind = DispatchKind(dispatch: dispatch, isCrashNotice: false)
        #expect(kind == .launch)
        let entry = DispatchJournalEntry(
            unit: "nginx.service", dispatch: dispatch, invocationID: Self.invocation, sequence: 12, kind: kind
        )
        let payload = #"{"autotracked":true,"lifecycle_dayofweek_local":3,"lifecycle_dayssincelastwake":2,"#
            + #""lifecycle_dayssincelaunch":2,"lifecycle_dayssinceupdate":0,"#
            + #""lifecycle_diddetectcrash":true,"lifecycle_firstlaunchdate":"2026-03-01T10:00:00Z","#
            + #""lifecycle_firstlaunchdate_MMDDYYYY":"03/01/2026","lifecycle_hourofday_local":12,"#
            + #""lifecycle_isfirstlaunchupdate":true,"lifecycle_isfirstwaketoday":true,"#
            + #""lifecycle_lastlaunchdate":"2026-03-01T10:00:00Z","#
            + #""lifecycle_lastwakedate":"2026-03-01T10:00:00Z","lifecycle_launchcount":1,"#
            + #""lifecycle_priorsecondsawake":0,"lifecycle_sleepcount":0,"lifecycle_totalcrashcount":1,"#
            + #""lifecycle_totallaunchcount":2,"lifecycle_totalsecondsawake":0,"lifecycle_totalsleepcount":0,"#
            + #""lifecycle_totalwakecount":2,"lifecycle_type":"launch","#
            + #""lifecycle_updatelaunchdate":"2026-03-03T12:30:05Z","lifecycle_wakecount":1}"#
        #expect(
            Self.lines(entry) == [
                "MESSAGE=nginx.service: launch #2, version updated (crash detected, 1 crash in total)",
                "MESSAGE_ID=7006b0aab99348aaa0549048c05b00b9",
                "PRIORITY=6",
                "SYSLOG_IDENTIFIER=lifecycled",
                "OBJECT_SYSTEMD_UNIT=nginx.service",
                "LIFECYCLE_UNIT=nginx.service",
                "LIFECYCLE_EVENT=launch",
                "LIFECYCLE_TIME=2026-03-03T12:30:05.250Z",
                "LIFECYCLE_INVOCATION_ID=0123456789abcdef0123456789abcdef",
                "LIFECYCLE_SEQUENCE=12",
                "LIFECYCLE_PAYLOAD=\(payload)",
                "LIFECYCLE_AUTOTRACKED=true",
                "LIFECYCLE_DAYOFWEEK_LOCAL=3",
                "LIFECYCLE_DAYSSINCELASTWAKE=2",
                "LIFECYCLE_DAYSSINCELAUNCH=2",
                "LIFECYCLE_DAYSSINCEUPDATE=0",
                "LIFECYCLE_DIDDETECTCRASH=true",
                "LIFECYCLE_FIRSTLAUNCHDATE=2026-03-01T10:00:00Z",
                "LIFECYCLE_FIRSTLAUNCHDATE_MMDDYYYY=03/01/2026",
                "LIFECYCLE_HOUROFDAY_LOCAL=12",
                "LIFECYCLE_ISFIRSTLAUNCHUPDATE=true",
                "LIFECYCLE_ISFIRSTWAKETODAY=true",
                "LIFECYCLE_LASTLAUNCHDATE=2026-03-01T10:00:00Z",
                "LIFECYCLE_LASTWAKEDATE=2026-03-01T10:00:00Z",
                "LIFECYCLE_LAUNCHCOUNT=1",
                "LIFECYCLE_PRIORSECONDSAWAKE=0",
                "LIFECYCLE_SLEEPCOUNT=0",
                "LIFECYCLE_TOTALCRASHCOUNT=1",
                "LIFECYCLE_TOTALLAUNCHCOUNT=2",
                "LIFECYCLE_TOTALSECONDSAWAKE=0",
                "LIFECYCLE_TOTALSLEEPCOUNT=0",
                "LIFECYCLE_TOTALWAKECOUNT=2",
                "LIFECYCLE_TYPE=launch",
                "LIFECYCLE_UPDATELAUNCHDATE=2026-03-03T12:30:05Z",
                "LIFECYCLE_WAKECOUNT=1",
            ]
        )
        #expect(entry.fields.allSatisfy { Self.journaldKeeps($0.name) })
    }

    @Test("a crash notice is a warning with the crash MESSAGE_ID and what systemd reported")
    func crashNotice() throws {
        var unit = Unit()
        _ = unit.observe(.runBegan(version: nil), "2026-03-01T10:00:00.000Z")
        let details = CrashDetails(result: "signal", execMainCode: 2, execMainStatus: 9, nRestarts: 3).data
        let dispatchObserved = unit.observe(.runFailed(details: details), "2026-03-01T10:05:00.007Z")
        let dispatch = try #require(dispatchObserved)
        let kind = DispatchKind(dispatch: dispatch, isCrashNotice: true)
        let entry = DispatchJournalEntry(
            unit: "nginx.service", dispatch: dispatch, invocationID: Self.invocation, sequence: 2, kind: kind
        )
        #expect(
            Self.lines(entry) == [
                "MESSAGE=nginx.service: crash (signal, status 9/KILL)",
                "MESSAGE_ID=8ca45d5015014645bedba16bc4a17ad0",
                "PRIORITY=4",
                "SYSLOG_IDENTIFIER=lifecycled",
                "OBJECT_SYSTEMD_UNIT=nginx.service",
                "LIFECYCLE_UNIT=nginx.service",
                "LIFECYCLE_EVENT=crash",
                "LIFECYCLE_TIME=2026-03-01T10:05:00.007Z",
                "LIFECYCLE_INVOCATION_ID=0123456789abcdef0123456789abcdef",
                "LIFECYCLE_SEQUENCE=2",
                #"LIFECYCLE_PAYLOAD={"autotracked":true,"exit_code":"killed","exit_status":9,"n_restarts":3,"#
                    + #""unit_result":"signal"}"#,
                "LIFECYCLE_AUTOTRACKED=true",
                "LIFECYCLE_EXIT_CODE=killed",
                "LIFECYCLE_EXIT_STATUS=9",
                "LIFECYCLE_N_RESTARTS=3",
                "LIFECYCLE_UNIT_RESULT=signal",
            ]
        )
        // Told apart only by the caller: the same dispatch, not flagged as a crash notice, is a custom event.
        #expect(DispatchKind(dispatch: dispatch, isCrashNotice: false) == .custom)
    }

    @Test("launch, wake and sleep messages count totals, and an unknown invocation leaves its field out")
    func messages() throws {
        var unit = Unit()
        let launchObserved = unit.observe(.runBegan(version: "1"), "2026-03-01T10:00:00.000Z")
        let launch = try #require(launchObserved)
        let sleepObserved = unit.observe(.runEnded, "2026-03-01T11:00:00.000Z")
        let sleep = try #require(sleepObserved)
        let wakeObserved = unit.observe(.runBegan(version: "1"), "2026-03-01T11:00:10.000Z")
        let wake = try #require(wakeObserved)
        func entry(_ dispatch: Dispatch, _ invocation: String?) -> DispatchJournalEntry {
            DispatchJournalEntry(
                unit: "a.service", dispatch: dispatch, invocationID: invocation, sequence: 1,
                kind: DispatchKind(dispatch: dispatch, isCrashNotice: false)
            )
        }
        #expect(entry(launch, nil).fields[0].value == "a.service: launch #1 (first launch)")
        #expect(entry(sleep, nil).fields[0].value == "a.service: sleep after 3600 s awake")
        #expect(entry(wake, nil).fields[0].value == "a.service: wake #2")
        #expect(entry(sleep, nil).fields[1].value == "1ecaafbe5252451daa10ccc3e7fd2329")
        #expect(entry(wake, nil).fields[1].value == "c3cffdd912a94468bf55af95c5153a3f")
        for invocation in [nil, ""] {
            #expect(!entry(wake, invocation).fields.contains { $0.name == "LIFECYCLE_INVOCATION_ID" })
        }
    }

    @Test("custom data keys become valid LIFECYCLE_ fields and never replace the entry's own fields")
    func customEventKeys() throws {
        let long = String(repeating: "k", count: 100)
        let data: [String: JSONValue] = [
            "build-id": .string("abc"), "1st": .int(1), "_x": .bool(false), "MESSAGE": .string("spoofed"),
            long: .null, "unit": .string("other.service"), "tags": .array([.string("a"), .int(2)]),
        ]
        let dispatch = Dispatch(name: "deploy", time: 0, lifecycle: nil, customData: data)
        let kind = DispatchKind(dispatch: dispatch, isCrashNotice: false)
        #expect(kind == .custom)
        let entry = DispatchJournalEntry(
            unit: "a.service", dispatch: dispatch, invocationID: nil, sequence: 7, kind: kind
        )
        let fields = Dictionary(entry.fields.map { ($0.name, [$0.value]) }, uniquingKeysWith: +)

        #expect(fields["MESSAGE"] == ["a.service: custom event deploy"])
        #expect(fields["MESSAGE_ID"] == ["c045a9c8b7de4d3084fecaf0ae0df532"])
        #expect(fields["LIFECYCLE_MESSAGE"] == ["spoofed"])
        #expect(fields["LIFECYCLE_BUILD_ID"] == ["abc"])
        #expect(fields["LIFECYCLE_1ST"] == ["1"])
        #expect(fields["LIFECYCLE__X"] == ["false"])
        #expect(fields["LIFECYCLE_TAGS"] == [#"["a",2]"#])
        #expect(fields["LIFECYCLE_" + String(repeating: "K", count: 54)] == [""])
        // A key that maps onto a fixed field stays in the payload only.
        #expect(fields["LIFECYCLE_UNIT"] == ["a.service"])
        #expect(fields["LIFECYCLE_PAYLOAD"]?.first?.contains(#""unit":"other.service""#) == true)
        // The fixed fields (no invocation ID is known), then the keys in sorted order, `unit` left out.
        #expect(
            entry.fields.map(\.name) == [
                "MESSAGE", "MESSAGE_ID", "PRIORITY", "SYSLOG_IDENTIFIER", "OBJECT_SYSTEMD_UNIT", "LIFECYCLE_UNIT",
                "LIFECYCLE_EVENT", "LIFECYCLE_TIME", "LIFECYCLE_SEQUENCE", "LIFECYCLE_PAYLOAD", "LIFECYCLE_1ST",
                "LIFECYCLE_MESSAGE", "LIFECYCLE__X", "LIFECYCLE_BUILD_ID",
                "LIFECYCLE_" + String(repeating: "K", count: 54), "LIFECYCLE_TAGS",
            ]
        )
        for field in entry.fields {
            #expect(Self.journaldKeeps(field.name), "\(field.name)")
            #expect(!field.name.hasPrefix("_") && !(field.name.first?.isNumber ?? true))
        }
    }

    @Test("every lifecycle data point has a field of its own: names distinct, none of the entry's own")
    func everyDataPointOwnField() throws {
        var unit = Unit()
        let observed = unit.observe(.runBegan(version: "1.0"), "2026-03-01T10:00:00.000Z")
        var dispatch = try #require(observed)
        var data = try #require(dispatch.lifecycle)
        (data.daysSinceLaunch, data.daysSinceLastWake, data.daysSinceUpdate) = (1, 2, 3)
        (data.firstLaunchDate, data.lastLaunchDate, data.lastWakeDate, data.lastSleepDate, data.updateLaunchDate) =
            (1, 2, 3, 4, 5)
        (data.secondsAwake, data.priorSecondsAwake) = (6, 7)
        (data.isFirstLaunch, data.isFirstLaunchUpdate) = (true, true)
        (data.isFirstWakeToday, data.isFirstWakeMonth) = (true, true)
        (data.didDetectCrash, data.autotracked) = (true, true)
        dispatch.lifecycle = data
        let entry = DispatchJournalEntry(
            unit: "a.service", dispatch: dispatch, invocationID: Self.invocation, sequence: 1, kind: .launch
        )
        let names = entry.fields.map(\.name)
        let perKey = names.drop { $0 != "LIFECYCLE_PAYLOAD" }.dropFirst()
        #expect(perKey.count == dispatch.payload.count)
        #expect(Set(names).count == names.count)
        #expect(perKey.allSatisfy { !DispatchField.reserved.contains($0) && Self.journaldKeeps($0) })
    }

    @Test("keys that map to one name: the first in sorted key order gets the field")
    func collidingKeys() {
        let data: [String: JSONValue] = ["build_id": .int(3), "build-id": .int(2), "BUILD.ID": .int(1)]
        let dispatch = Dispatch(name: "deploy", time: 0, lifecycle: nil, customData: data)
        let entry = DispatchJournalEntry(
            unit: "a.service", dispatch: dispatch, invocationID: nil, sequence: 1, kind: .custom
        )
        #expect(entry.fields.filter { $0.name == "LIFECYCLE_BUILD_ID" }.map(\.value) == ["1"])
    }

    @Test("a custom key named like a data point: the first in key order gets the field; one of its key replaces it")
    func customKeysBesideDataPoints() throws {
        var unit = Unit()
        let observed = unit.observe(.runBegan(version: "1.0"), "2026-03-01T10:00:00.000Z")
        var dispatch = try #require(observed)
        // `LIFECYCLE-WAKECOUNT` sorts before the data point `lifecycle_wakecount` and takes its field;
        // `lifecycle_launchcount` replaces the data point of that key; the others take names of their own.
        dispatch.customData = [
            "LIFECYCLE-WAKECOUNT": .string("custom first"), "lifecycle_launchcount_": .string("not a data point"),
            "lifecycle_launchcount": .int(-1), "run_duration_seconds": .double(0.5),
        ]
        let entry = DispatchJournalEntry(
            unit: "a.service", dispatch: dispatch, invocationID: Self.invocation, sequence: 1, kind: .launch
        )
        let fields = Dictionary(entry.fields.map { ($0.name, [$0.value]) }, uniquingKeysWith: +)
        #expect(fields["LIFECYCLE_WAKECOUNT"] == ["custom first"])
        #expect(fields["LIFECYCLE_LAUNCHCOUNT"] == ["-1"])
        #expect(fields["LIFECYCLE_LAUNCHCOUNT_"] == ["not a data point"])
        #expect(fields["LIFECYCLE_RUN_DURATION_SECONDS"] == ["0.5"])
        #expect(fields["LIFECYCLE_SLEEPCOUNT"] == ["0"])
        #expect(fields["LIFECYCLE_PAYLOAD"]?.first?.contains(#""lifecycle_wakecount":1"#) == true)
        let names = entry.fields.map(\.name)
        #expect(Set(names).count == names.count)
    }

    @Test("a custom event named like a lifecycle event is still a custom event")
    func customNamedLaunch() {
        let dispatch = Dispatch(name: "launch", time: 0, lifecycle: nil, customData: [:])
        #expect(DispatchKind(dispatch: dispatch, isCrashNotice: false) == .custom)
    }

    @Test(
        "field names are upper-cased, sanitised, prefixed once and cut to 64 characters",
        arguments: [
            ("lifecycle_dayssincelaunch", "LIFECYCLE_DAYSSINCELAUNCH"),
            ("Lifecycle_x", "LIFECYCLE_X"),
            ("lifecyclex", "LIFECYCLE_LIFECYCLEX"),
            ("http.status-code", "LIFECYCLE_HTTP_STATUS_CODE"),
            ("", "LIFECYCLE_"),
            ("ß", "LIFECYCLE__"),
            ("e\u{301}", "LIFECYCLE__"),
            ("a\nb", "LIFECYCLE_A_B"),
            // CR LF is one Character, so one underscore; a lone CR is one too.
            ("a\r\nb", "LIFECYCLE_A_B"),
            ("a\rb", "LIFECYCLE_A_B"),
            ("a\u{7F}b", "LIFECYCLE_A_B"),
            (String(repeating: "x", count: 100), "LIFECYCLE_" + String(repeating: "X", count: 54)),
        ]
    )
    func sanitize(key: String, name: String) {
        #expect(LifecycleFieldName.sanitize(key) == name)
        #expect(Self.journaldKeeps(name))
    }

    @Test("payload values: decimal integers, true/false, strings as they are, null empty, the rest compact JSON")
    func values() {
        #expect(DispatchJournalEntry.fieldValue(.int(-42)) == "-42")
        #expect(DispatchJournalEntry.fieldValue(.bool(true)) == "true")
        #expect(DispatchJournalEntry.fieldValue(.string("a \"b\"\nc")) == "a \"b\"\nc")
        #expect(DispatchJournalEntry.fieldValue(.null) == "")
        #expect(DispatchJournalEntry.fieldValue(.double(1.5)) == "1.5")
        #expect(DispatchJournalEntry.fieldValue(.object(["b": .int(1), "a": .array([])])) == #"{"a":[],"b":1}"#)
    }

    /// Custom data that overrides data points, maps several keys onto one name or onto reserved names, and is not
    /// ASCII.
    static let customPayloads: [[String: JSONValue]] = [
        [:],
        ["lifecycle_launchcount": .string("custom wins"), "autotracked": .bool(false)],
        ["build-id": .int(1), "build_id": .int(2), "BUILD.ID": .int(3), "lifecycle_build_id": .int(4)],
        ["unit": .string("u"), "event": .string("e"), "lifecycle_payload": .string("p"), "sequence": .int(9)],
        ["é": .int(1), "naïve-é": .int(2), "ß": .bool(true), "a\r\nb": .null, "MESSAGE": .string("m")],
        ["zzz": .array([.int(1), .object(["b": .int(1), "a": .int(2)])]), "aaa": .double(1.5)],
        // Next to every data point's key, on both sides, and on it: custom keys merged in at every place.
        Dictionary(
            LifecycleData.Key.allCases.flatMap { key in
                [String(key.description.dropLast()), key.description, key.description + "0"]
                    .map { ($0, JSONValue.int(7)) }
            },
            uniquingKeysWith: { first, _ in first }
        ),
    ]

    /// The entry's payload and per-key fields against the plain construction from `Dispatch.payload`: the dictionary
    /// written as an object, then its keys in sorted order, each sanitized, reserved and repeated names left out.
    /// Each dispatch is built twice, so that the second build takes every name from the cache.
    @Test("the payload and its per-key fields are those of the payload dictionary", arguments: customPayloads.indices)
    func payloadAsTheDictionary(index: Int) throws {
        var unit = Unit()
        var dispatches: [Dispatch] = []
        dispatches += [unit.observe(.runBegan(version: "1.0"), "2026-03-01T10:00:00.000Z")].compactMap { $0 }
        dispatches += [unit.observe(.runEnded, "2026-03-01T11:00:00.000Z")].compactMap { $0 }
        dispatches += [unit.observe(.runBegan(version: "2.0"), "2026-03-02T10:00:00.000Z")].compactMap { $0 }
        try #require(dispatches.count == 3)
        for var dispatch in dispatches {
            dispatch.customData = Self.customPayloads[index]
            let payload = dispatch.payload
            var writer = JSONWriter()
            writer.value(.object(payload))
            var expected = ["LIFECYCLE_PAYLOAD=\(writer.string)"]
            var used = DispatchField.reserved
            for key in payload.keys.sorted() {
                let name = LifecycleFieldName.sanitize(key)
                guard used.insert(name).inserted else { continue }
                expected.append("\(name)=\(DispatchJournalEntry.fieldValue(payload[key]!))")
            }
            for _ in 0..<2 {
                let entry = DispatchJournalEntry(
                    unit: "a.service", dispatch: dispatch, invocationID: nil, sequence: 1, kind: .launch
                )
                let lines = Self.lines(entry)
                let start = try #require(lines.firstIndex { $0.hasPrefix("LIFECYCLE_PAYLOAD=") })
                #expect(Array(lines[start...]) == expected)
            }
        }
    }
}
