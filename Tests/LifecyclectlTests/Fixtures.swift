// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleStorage

import Glibc

/// Records and instants shared by the tests: three units in three situations, seen at one fixed `now`.
enum Fixtures {
    /// 2026-03-02T12:00:00Z.
    static let now: Milliseconds = 1_772_452_800_000
    static let second: Milliseconds = 1_000
    static let minute: Milliseconds = 60 * second
    static let hour: Milliseconds = 60 * minute
    static let day: Milliseconds = 24 * hour

    static let utc = TimeZoneRules.utc
    static let digest = "3f2a9c1b7d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccddeeff"

    /// Asleep: launched twice, crashed once, last slept an hour before `now`.
    static var nginx: UnitRecord {
        var state = UnitState()
        state.version = "1.25.3"
        state.firstLaunch = now - 26 * hour  // 2026-03-01T10:00:00Z
        state.lastLaunch = now - 2 * hour
        state.lastWake = now - 2 * hour
        state.lastSleep = now - hour
        state.launchCount = 2
        state.wakeCount = 3
        state.sleepCount = 2
        state.totalLaunchCount = 2
        state.totalWakeCount = 3
        state.totalSleepCount = 2
        state.totalCrashCount = 1
        state.lastEvent = .sleep
        state.totalSecondsAwake = 7_200
        state.priorSecondsAwake = 3_600
        return UnitRecord(
            unit: "nginx.service",
            state: state,
            invocationID: "0123456789abcdef0123456789abcdef",
            sequence: 7
        )
    }

    /// Up: first launched 60 days and 12 hours before `now`, launched again 3 minutes before it; the version is the
    /// executable's SHA-256.
    static var cron: UnitRecord {
        var state = UnitState()
        state.version = digest
        state.firstLaunch = now - 60 * day - 12 * hour  // 2026-01-01T00:00:00Z
        state.lastLaunch = now - 3 * minute
        state.lastWake = now - 3 * minute
        state.lastSleep = now - 10 * day
        state.launchCount = 4
        state.wakeCount = 9
        state.sleepCount = 8
        state.totalLaunchCount = 4
        state.totalWakeCount = 9
        state.totalSleepCount = 8
        state.lastEvent = .launch
        state.totalSecondsAwake = 90_000
        state.hasLaunchedInRun = true
        return UnitRecord(
            unit: "cron.service",
            state: state,
            invocationID: "fedcba9876543210fedcba9876543210",
            sequence: 21
        )
    }

    /// Seen but never started since lifecycled watches it: no event yet.
    static var fresh: UnitRecord {
        UnitRecord(unit: "fresh.service")
    }

    static var all: [UnitRecord] { [nginx, fresh, cron] }

    /// Failed: launched 5 minutes before `now`, exited with status 7 at once, never restarted (worker@bad.service).
    static var bad: UnitRecord {
        var state = UnitState()
        state.firstLaunch = now - 5 * minute
        state.lastLaunch = now - 5 * minute
        state.lastWake = now - 5 * minute
        state.launchCount = 1
        state.wakeCount = 1
        state.totalLaunchCount = 1
        state.totalWakeCount = 1
        state.lastEvent = .launch
        state.hasLaunchedInRun = true
        return UnitRecord(
            unit: "worker@bad.service",
            state: state,
            invocationID: "00112233445566778899aabbccddeeff",
            runEnded: true,
            sequence: 2,
            lastFailure: RunFailure(result: "exit-code", exitCode: "exited", exitStatus: 7, time: now - 5 * minute),
            recentCrashes: [now - 5 * minute]
        )
    }

    /// Killed with SIGKILL three times within 9 minutes and restarted each time; its last run was killed a minute
    /// before `now` and has not been restarted yet.
    static var killed: UnitRecord {
        var state = UnitState()
        state.firstLaunch = now - 10 * minute
        state.lastLaunch = now - 2 * minute
        state.lastWake = now - 2 * minute
        state.launchCount = 3
        state.wakeCount = 3
        state.totalLaunchCount = 3
        state.totalWakeCount = 3
        state.totalCrashCount = 2
        state.lastEvent = .launch
        state.hasLaunchedInRun = true
        return UnitRecord(
            unit: "spinner.service",
            state: state,
            invocationID: "ffeeddccbbaa99887766554433221100",
            runEnded: true,
            sequence: 6,
            lastFailure: RunFailure(result: "signal", exitCode: "killed", exitStatus: 9, time: now - minute),
            recentCrashes: [now - 9 * minute, now - 5 * minute, now - minute]
        )
    }
}

/// A fresh directory under `$TMPDIR` for one test, removed with everything in it when the test ends.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/lifecyclectl-test.XXXXXX").utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CocoaError(.fileWriteUnknown)
        }
        path = String(cString: created)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `text` to `name` (relative to the directory), creating parent directories.
    func write(_ text: String, to name: String) throws {
        let file = path + "/" + name
        let parent = (file as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
    }

    /// The sorted names in the subdirectory `name`.
    func list(_ name: String = "") -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path + "/" + name)) ?? []).sorted()
    }
}
