// SPDX-License-Identifier: Apache-2.0

@testable import LifecycleDaemon
import LifecycleSystemd
import Testing

/// When a look's journal is kept open for the next look (`JournalLooker.keepsJournal`).
struct JournalLookerTests {
    static func holdings(found: [Bool], recentFound: [Bool]) -> JournalHoldings {
        JournalHoldings(found: found, recentFound: recentFound, lookedUp: 0, oldest: nil)
    }

    @Test("kept only when the kept files held every dispatch, and the probe asked for first")
    func keptOnlyWhenNothingWasMissed() {
        #expect(JournalLooker.keepsJournal(after: Self.holdings(found: [], recentFound: [true, true]), probeAsked: false))
        #expect(JournalLooker.keepsJournal(after: Self.holdings(found: [true, false], recentFound: [true]), probeAsked: true),
                "the evidence of earlier processes, missing, is no miss")
        #expect(!JournalLooker.keepsJournal(after: Self.holdings(found: [], recentFound: [true, false]), probeAsked: false))
        #expect(!JournalLooker.keepsJournal(after: Self.holdings(found: [false, true], recentFound: [true]), probeAsked: true))
        #expect(!JournalLooker.keepsJournal(after: Self.holdings(found: [false], recentFound: []), probeAsked: true))
        var fromWhole = Self.holdings(found: [], recentFound: [true, true])
        fromWhole.askedWhole = 1
        #expect(!JournalLooker.keepsJournal(after: fromWhole, probeAsked: false), "found, but not in the kept files")
    }
}
