// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import Testing

/// A reload that adds watch patterns: the units they add are rebuilt from PID 1's whole journal at the listing that
/// follows, as on a first start, before anything else of theirs is recorded.
struct DaemonCoreWatchAddedTests {
    typealias H = CoreHarness

    /// Tracking web*.service, then reloaded with `patterns` (history_from_journal as given).
    func reloaded(_ patterns: [String], historyFromJournal: Bool = true) throws -> H {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        var configuration = h.core.configuration
        configuration.watch = try patterns.map { WatchRule(pattern: try UnitPattern($0)) }
        configuration.historyFromJournal = historyFromJournal
        h.send(.reloaded(.success(ReloadedConfiguration(configuration: configuration, timeZone: H.utc))))
        return h
    }

    @Test("api*.service added: its runs in PID 1's journal become reconciled dispatches, then the listing's run is taken")
    func rebuilt() throws {
        var h = try reloaded(["web*.service", "api*.service"])
        #expect(h.watched.last?.map(\.description) == ["web*.service", "api*.service"])
        var answer = RecoveryAnswer(history: H.history([(run: "a", began: 10, ended: 15, failure: nil),
                                                         (run: "b", began: 20, ended: 25, failure: "exit-code")], unit: "api.service"))
        answer.isWholeJournal = true
        h.recovery = answer
        let queries = h.recoveryQueries.count
        h.send(.listing([H.snapshot("active", "c", second: 30, unit: "api.service")]))
        let query = try #require(h.recoveryQueries.dropFirst(queries).first)
        let selection = UnitSelection(patterns: [try UnitPattern("api*.service")], excluded: [try UnitPattern("web*.service")])
        #expect(query.history == .wholeJournal(of: selection))
        #expect(query.barrier != nil, "read once the journal shows what PID 1 logged before the listing")
        #expect(h.dispatches(of: "api.service") == [
            "1 launch a reconciled", "2 sleep a reconciled", "3 wake b reconciled", "4 crash b reconciled",
            "5 launch c",  // the listed run, after the crash: a new session, as the engine counts it
        ])
        h.send(.changed(H.snapshot("inactive", "c", second: 40, unit: "api.service")))
        #expect(h.dispatches(of: "api.service").last == "6 sleep c", "tracked on")
    }

    @Test("nothing added, or history_from_journal off: the listing is taken as it is, no history read", arguments: [
        (["web*.service"], true), (["web*.service", "api*.service"], false), (["api*.service"], false),
    ])
    func notRebuilt(patterns: [String], historyFromJournal: Bool) throws {
        var h = try reloaded(patterns, historyFromJournal: historyFromJournal)
        let queries = h.recoveryQueries.count
        h.send(.listing([H.snapshot("active", "c", second: 30, unit: "api.service")]))
        #expect(h.recoveryQueries.count == queries)
    }
}
