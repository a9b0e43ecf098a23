// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSystemd
import Logging

/// Units and their properties as systemd 252 sends them, for the fake manager.
enum UnitFixtures {
    static let invocation: [UInt8] = [
        0x51, 0xb4, 0x56, 0x8c, 0x28, 0x47, 0x49, 0x4e, 0x97, 0x93, 0x50, 0xbc, 0xda, 0x54, 0x81, 0x11,
    ]
    static let invocationHex = "51b4568c2847494e979350bcda548111"

    static func serviceProperties(
        result: String, nRestarts: UInt32, code: Int32, status: Int32, mainPID: UInt32
    ) -> [(String, BusValue)] {
        [
            ("MainPID", .uint32(mainPID)),
            ("ControlPID", .uint32(0)),
            ("StatusText", .string("")),
            ("Result", .string(result)),
            ("NRestarts", .uint32(nRestarts)),
            ("ExecMainStartTimestamp", .uint64(1_763_000_000_000_000)),
            ("ExecMainCode", .int32(code)),
            ("ExecMainStatus", .int32(status)),
            ("ExecStart", .array(elementSignature: "(sasbttttuii)", [
                .structure([
                    .string("/usr/sbin/web"), .strings(["/usr/sbin/web", "--serve"]), .bool(false),
                    .uint64(1), .uint64(2), .uint64(0), .uint64(0), .uint32(1234), .int32(0), .int32(0),
                ]),
                .structure([
                    .string("/usr/bin/true"), .strings(["true"]), .bool(true),
                    .uint64(0), .uint64(0), .uint64(0), .uint64(0), .uint32(0), .int32(0), .int32(0),
                ]),
            ])),
            ("Environment", .strings(["VERSION=2.4.1", "MODE=prod"])),
        ]
    }

    static func unitProperties(
        active: String, sub: String, invocation: [UInt8], timestamp: UInt64, job: UInt32 = 0
    ) -> [(String, BusValue)] {
        [
            ("ActiveState", .string(active)),
            ("SubState", .string(sub)),
            ("Description", .string("A unit with properties the source skips")),
            ("Job", .structure([.uint32(job), .objectPath(job == 0 ? "/" : "/org/freedesktop/systemd1/job/\(job)")])),
            ("FreezerState", .string("running")),
            ("InvocationID", .bytes(invocation)),
            ("StateChangeTimestamp", .uint64(timestamp)),
            ("StateChangeTimestampMonotonic", .uint64(timestamp / 1000)),
            ("ActivationDetails", .array(elementSignature: "(ss)", [])),
            ("Conditions", .array(elementSignature: "(sbbsi)", [])),
            ("FragmentPath", .string("/etc/systemd/system/web.service")),
            ("DropInPaths", .strings(["/etc/systemd/system/web.service.d/10-limits.conf"])),
        ]
    }

    /// A `.Unit` `PropertiesChanged` map as systemd 252 sends it: every property in PID 1's order, the ones the
    /// source does not use among them, and the arrays after `InvocationID`.
    static func unitPropertiesInPID1Order(
        active: String, sub: String, invocation: [UInt8], monotonic: UInt64
    ) -> [(String, BusValue)] {
        [
            ("ActiveState", .string(active)), ("FreezerState", .string("running")), ("SubState", .string(sub)),
            ("StateChangeTimestamp", .uint64(monotonic + 1_000_000)),
            ("StateChangeTimestampMonotonic", .uint64(monotonic)),
            ("InactiveExitTimestamp", .uint64(1_000_001)), ("InactiveExitTimestampMonotonic", .uint64(1)),
            ("ActiveEnterTimestamp", .uint64(1_000_002)), ("ActiveEnterTimestampMonotonic", .uint64(2)),
            ("ActiveExitTimestamp", .uint64(0)), ("ActiveExitTimestampMonotonic", .uint64(0)),
            ("InactiveEnterTimestamp", .uint64(monotonic + 1_000_000)),
            ("InactiveEnterTimestampMonotonic", .uint64(monotonic)),
            ("Job", .structure([.uint32(0), .objectPath("/")])),
            ("ConditionResult", .bool(true)), ("AssertResult", .bool(true)),
            ("ConditionTimestamp", .uint64(1_000_001)), ("ConditionTimestampMonotonic", .uint64(1)),
            ("AssertTimestamp", .uint64(1_000_001)), ("AssertTimestampMonotonic", .uint64(1)),
            ("InvocationID", .bytes(invocation)),
            ("ActivationDetails", .array(elementSignature: "(ss)", [])),
            ("Conditions", .array(elementSignature: "(sbbsi)", [
                .structure([.string("ConditionPathExists"), .bool(false), .bool(false), .string("/etc"), .int32(1)]),
            ])),
            ("Asserts", .array(elementSignature: "(sbbsi)", [])),
        ]
    }

    /// A `.Service` `PropertiesChanged` map as systemd 252 sends it, in PID 1's order, with the command lines after
    /// the last value the source uses.
    static func servicePropertiesInPID1Order(result: String, code: Int32, status: Int32) -> [(String, BusValue)] {
        let command = BusValue.array(elementSignature: "(sasbttttuii)", [
            .structure([
                .string("/bin/true"), .strings(["/bin/true"]), .bool(false),
                .uint64(1), .uint64(2), .uint64(3), .uint64(4), .uint32(47), .int32(1), .int32(0),
            ]),
        ])
        return [
            ("MainPID", .uint32(0)), ("ControlPID", .uint32(0)), ("StatusText", .string("")),
            ("StatusErrno", .int32(0)),
            ("Result", .string(result)), ("ReloadResult", .string("success")), ("CleanResult", .string("success")),
            ("UID", .uint32(0)), ("GID", .uint32(0)), ("NRestarts", .uint32(0)),
            ("ExecMainStartTimestamp", .uint64(1_000_001)), ("ExecMainStartTimestampMonotonic", .uint64(1)),
            ("ExecMainExitTimestamp", .uint64(1_000_003)), ("ExecMainExitTimestampMonotonic", .uint64(3)),
            ("ExecMainPID", .uint32(47)), ("ExecMainCode", .int32(code)), ("ExecMainStatus", .int32(status)),
            ("ExecCondition", command), ("ExecStartPre", command), ("ExecStart", command), ("ExecStartPost", command),
            ("ExecReload", command), ("ExecStop", command), ("ExecStopPost", command),
        ]
    }

    /// A running service with one restart behind it.
    static let web = FakeSystemd.Unit(
        name: "web.service", activeState: "active", subState: "running",
        unitProperties: unitProperties(
            active: "active", sub: "running", invocation: invocation, timestamp: 1_763_000_000_000_000
        ),
        typeProperties: serviceProperties(result: "success", nRestarts: 1, code: 0, status: 0, mainPID: 1234)
    )

    /// web.service as a resync reads it: running, so without its `.Service` values, which only an end uses.
    static let webSnapshot = UnitSnapshot(
        name: "web.service", activeState: .active, subState: "running", invocationID: invocationHex,
        freezerState: "running",
        stateChangeTimestamp: 1_763_000_000_000_000, stateChangeTimestampMonotonic: 1_763_000_000_000, jobID: 0
    )

    /// `snapshot` with web.service's `.Service` values, as a resync reads them of a unit that is not running.
    static func withServiceValues(_ snapshot: UnitSnapshot) -> UnitSnapshot {
        var read = snapshot
        read.result = "success"
        read.nRestarts = 1
        read.execMainCode = 0
        read.execMainStatus = 0
        read.mainPID = 1234
        return read
    }

    /// Referenced by something but without a unit file: listed, never to be read.
    static let ghost = FakeSystemd.Unit(name: "ghost.service", loadState: "not-found")

    /// Loaded but not matched by `*.service`.
    static let socket = FakeSystemd.Unit(
        name: "db.socket", activeState: "active", subState: "listening",
        unitProperties: unitProperties(active: "active", sub: "listening", invocation: [], timestamp: 5),
        typeProperties: [("Result", .string("success"))]
    )

    static func logger() -> Logger {
        var logger = Logger(label: "test.lifecycled.units")
        logger.logLevel = .critical
        return logger
    }

    static let fastReconnect = ReconnectPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200))
}
