// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

@testable import LifecycleCore

/// When a run's cost is asked for: per unit as before, and per host once a few units answered without any cost, with
/// one end in 64 asked anyway; one cost answered, and every end is asked again.
struct CostAccountingTests {
    static let empty: RunRecord? = RunRecord()
    static let cost: RunRecord? = RunRecord(cpuSeconds: 0.01)

    /// Asks at the end of each unit in turn, answering `answer` for the units asked; returns the units asked.
    static func churn(
        _ accounting: inout CostAccounting, units: Range<Int>, answer: RunRecord?
    ) -> [Int] {
        var asked: [Int] = []
        for number in units where accounting.readsCost(ofEndOf: "u\(number).service") {
            asked.append(number)
            accounting.took(answer, of: "u\(number).service")
        }
        return asked
    }

    @Test("three units without any cost, and the host is asked one end in 64")
    func learnsOncePerHost() {
        var accounting = CostAccounting()
        let asked = Self.churn(&accounting, units: 0..<200, answer: Self.empty)
        #expect(asked == [0, 1, 2, 66, 130, 194])
        #expect(accounting.host == .accountsNothing(endsSinceProbe: 5))
    }

    @Test("a cost answered while learning: every end is asked, whatever units answer without one later")
    func hostThatAccounts() {
        var accounting = CostAccounting()
        #expect(Self.churn(&accounting, units: 0..<2, answer: Self.empty) == [0, 1])
        #expect(Self.churn(&accounting, units: 2..<3, answer: Self.cost) == [2])
        #expect(Self.churn(&accounting, units: 3..<10, answer: Self.empty) == Array(3..<10))
        #expect(accounting.host == .accounts)
        let asksAgain = accounting.readsCost(ofEndOf: "u3.service")
        #expect(!asksAgain, "a unit without any cost is still not asked again")
    }

    @Test("a probe that finds a cost: the host accounts now, and every end is asked")
    func probeFindsAccounting() {
        var accounting = CostAccounting()
        _ = Self.churn(&accounting, units: 0..<66, answer: Self.empty)
        #expect(Self.churn(&accounting, units: 66..<70, answer: Self.cost) == [66, 67, 68, 69])
        #expect(accounting.host == .accounts)
    }

    @Test("a cost that could not be read at all teaches nothing")
    func unreadable() {
        var accounting = CostAccounting()
        #expect(Self.churn(&accounting, units: 0..<5, answer: nil) == [0, 1, 2, 3, 4])
        #expect(accounting.host == .learning(emptyUnits: 0))
        let asksAgain = accounting.readsCost(ofEndOf: "u0.service")
        #expect(asksAgain, "asked again at its next end")
    }

    @Test("a unit unloaded is asked again when loaded again; a reload learns the host again")
    func unloadAndReload() {
        var accounting = CostAccounting()
        _ = Self.churn(&accounting, units: 0..<3, answer: Self.empty)
        let asksUnit = accounting.readsCost(ofEndOf: "u0.service")
        #expect(!asksUnit)
        accounting.unloaded("u1.service")
        #expect(accounting.unitsWithoutCost == ["u0.service", "u2.service"])
        accounting.reloaded()
        #expect(accounting.host == .learning(emptyUnits: 0))
        let asksAfterReload = accounting.readsCost(ofEndOf: "u0.service")
        #expect(asksAfterReload)
    }
}
