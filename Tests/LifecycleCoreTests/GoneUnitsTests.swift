// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import LifecycleCore

/// When archiving gives memory back: after enough records, at most once a minute while units keep going, and as
/// soon as none is left waiting (the end of a churn), so that what stays resident is what lifecycled holds.
struct GoneUnitsTests {
    @Test("memory goes back after 100 records, at most once a minute while units keep going, at once when none waits")
    func releases() {
        var gone = GoneUnits()
        gone.went("a.service", at: 0)
        let answers = [
            gone.releasesMemory(archiving: 150, at: 0),
            gone.releasesMemory(archiving: 150, at: 1_000),  // within the minute, with units still waiting
            gone.releasesMemory(archiving: 20, at: 2_000),
        ]
        #expect(answers == [true, false, false])
        gone.returned("a.service")
        let quiet = gone.releasesMemory(archiving: 1, at: 3_000)
        #expect(quiet, "the churn is over: what was archived since goes back")
        let few = gone.releasesMemory(archiving: 50, at: 4_000)
        #expect(!few, "fewer than 100 since")
    }
}
