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
            gone.memoryRelease(archiving: 150, at: 0),
            gone.memoryRelease(archiving: 150, at: 1_000),  // within the minute, with units still waiting
            gone.memoryRelease(archiving: 20, at: 2_000),
        ]
        #expect(answers == [.releaseMemory, nil, nil])
        gone.returned("a.service")
        let quiet = gone.memoryRelease(archiving: 1, at: 3_000)
        #expect(quiet == .releaseMemory, "the churn is over: what was archived since goes back")
        let few = gone.memoryRelease(archiving: 50, at: 4_000)
        #expect(few == nil, "fewer than 100 since")
    }

    @Test("while units keep going, the heap's free pages go back at each archiving round of 100 records or more")
    func trimsTheHeapBetweenReleases() {
        var gone = GoneUnits()
        gone.went("a.service", at: 0)
        let answers = [
            gone.memoryRelease(archiving: 150, at: 0),  // the first round gives everything back
            gone.memoryRelease(archiving: 150, at: 1_000),  // within 5 s of the last
            gone.memoryRelease(archiving: 150, at: 10_000),
            gone.memoryRelease(archiving: 50, at: 20_000),  // fewer than 100 since
            gone.memoryRelease(archiving: 60, at: 30_000),
            gone.memoryRelease(archiving: 150, at: 60_000),  // a minute after the first: everything again
        ]
        #expect(answers == [.releaseMemory, nil, .trimHeap, nil, .trimHeap, .releaseMemory])
    }
}
