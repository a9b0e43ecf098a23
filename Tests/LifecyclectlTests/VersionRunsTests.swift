// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import lifecyclectl

/// `lifecyclectl show`: a unit's runs per version, with the median start-up and CPU time per run.
struct VersionRunsTests {
    /// Run `n` (dispatches 2n-1 and 2n, a minute apart from 10:00) of `version`, ended by a sleep with `record`'s
    /// fields (`LIFECYCLE_RUN_` + key); `running` leaves out the sleep.
    private func run(
        _ n: Int, _ version: String?, _ record: [String: String] = [:], running: Bool = false
    ) -> [[String: String]] {
        let id = String(repeating: String(n % 10), count: 32)
        var launch = ["LIFECYCLE_SEQUENCE": String(2 * n - 1), "LIFECYCLE_EVENT": "launch"]
        launch["LIFECYCLE_INVOCATION_ID"] = id
        launch["LIFECYCLE_TIME"] = time(minute: 2 * n - 1)
        launch["LIFECYCLE_VERSION"] = version
        var sleep = launch
        sleep["LIFECYCLE_SEQUENCE"] = String(2 * n)
        sleep["LIFECYCLE_EVENT"] = "sleep"
        sleep["LIFECYCLE_TIME"] = time(minute: 2 * n)
        for (key, value) in record { sleep["LIFECYCLE_RUN_" + key] = value }
        return running ? [launch] : [launch, sleep]
    }

    private func time(minute: Int) -> String {
        "2026-03-02T10:\(minute < 10 ? "0" : "")\(minute):00.000Z"
    }

    private func grouped(_ runs: [[[String: String]]]) -> [VersionRuns] {
        VersionRuns.grouping(UnitRun.runs(from: Fixtures.journaled(runs.flatMap { $0 })))
    }

    @Test(
        "the median is the middle value of an odd count and the mean of the middle two of an even count",
        arguments: [
            ([], nil),
            ([2.5], 2.5),
            ([3, 1, 2], 2),
            ([5, 1, 100, 2, 3], 3),
            ([4, 1, 3, 2], 2.5),
            ([0.1, 0.2], 0.15000000000000002),
            ([7, 7], 7),
        ] as [([Double], Double?)]
    )
    func median(values: [Double], expected: Double?) {
        #expect(VersionRuns.median(values) == expected)
    }

    @Test("runs are counted per version, with the medians of their start-up and CPU times")
    func perVersion() {
        let versions = grouped([
            run(1, "1.0", ["STARTUP_SECONDS": "1", "CPU_SECONDS": "0.5"]),
            run(2, "1.0", ["STARTUP_SECONDS": "3", "CPU_SECONDS": "0.25"]),
            run(3, "1.0", ["STARTUP_SECONDS": "2", "CPU_SECONDS": "0.75"]),
            run(4, "2.0", ["STARTUP_SECONDS": "4", "CPU_SECONDS": "1"]),
            run(5, "2.0", ["STARTUP_SECONDS": "6", "CPU_SECONDS": "2"]),
        ])
        #expect(
            versions == [
                VersionRuns(version: "2.0", count: 2, medianStartupSeconds: 5, medianCPUSeconds: 1.5),
                VersionRuns(version: "1.0", count: 3, medianStartupSeconds: 2, medianCPUSeconds: 0.5),
            ]
        )
    }

    @Test("runs that do not know a value are counted but left out of its median, never taken as 0")
    func unknownValues() {
        let versions = grouped([
            run(1, "1.0", ["STARTUP_SECONDS": "2"]),
            run(2, "1.0", ["CPU_SECONDS": "0.5"]),
            run(3, "1.0", ["STARTUP_SECONDS": "4", "MEMORY_PEAK_BYTES": "4096"]),
            run(4, "1.0", running: true),
            run(5, "2.0"),
        ])
        #expect(
            versions == [
                VersionRuns(version: "2.0", count: 1, medianStartupSeconds: nil, medianCPUSeconds: nil),
                VersionRuns(version: "1.0", count: 4, medianStartupSeconds: 3, medianCPUSeconds: 0.5),
            ]
        )
    }

    @Test("newest version first, by each version's newest run: a version rolled back to leads")
    func order() {
        let updated = grouped([run(1, "1.0"), run(2, "1.1"), run(3, "1.2")])
        #expect(updated.map(\.version) == ["1.2", "1.1", "1.0"])
        let rolledBack = grouped([run(1, "1.0"), run(2, "1.1"), run(3, "1.0")])
        #expect(rolledBack.map(\.version) == ["1.0", "1.1"])
        #expect(rolledBack.map(\.count) == [2, 1])
    }

    @Test("runs without a version are one group of their own, in its place")
    func withoutVersion() {
        let versions = grouped([run(1, nil), run(2, nil), run(3, "1.0"), run(4, nil, running: true)])
        #expect(versions.map(\.version) == [nil, "1.0"])
        #expect(versions.map(\.count) == [3, 1])
    }

    @Test("no runs, no versions")
    func empty() {
        #expect(VersionRuns.grouping([]).isEmpty)
    }
}
