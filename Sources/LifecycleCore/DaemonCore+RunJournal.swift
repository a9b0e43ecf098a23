// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage

extension DaemonCore {
    /// Applies a transition other than a begin. The end of a run that failed by an OOM kill or a core dump first asks
    /// the journal who killed it or where its dump is (``RunJournalQuery``); everything else waits meanwhile.
    mutating func applyWithJournal(_ transition: MappedTransition) {
        guard let query = runJournalQuery(for: transition) else {
            apply(transition, version: nil)
            return
        }
        awaited = .runJournal(of: transition, query: query, reads: 1)
        effects.append(.readRunJournal(query))
    }

    /// What to ask the journal about the run `end` ends; nil when nothing: it did not fail by an OOM kill or a core
    /// dump, was recovered (its entries were read with the history), or PID 1's journal is not read.
    private mutating func runJournalQuery(for end: MappedTransition) -> RunJournalQuery? {
        guard readsManagerJournal, !end.isReconciled, case .failed(let details) = end.transition else { return nil }
        let run = end.endedRun
        var barrier: JournalBarrier?
        if details.result == OOMKiller.oomKillResult, run.oom == nil {
            journalBarriers += 1
            barrier = JournalBarrier(number: journalBarriers, write: true)
        }
        var span: ClosedRange<Milliseconds>?
        if let dump = run.coredump, dump.cursor == nil {
            let ended = end.time ?? now
            span = CoreDump.span(began: runBegan(end) ?? ended, ended: ended)
        }
        guard barrier != nil || span != nil else { return nil }
        return RunJournalQuery(
            run: UnitRunID(unit: end.unit, invocationID: end.invocationID), barrier: barrier, coreDumpSpan: span
        )
    }

    /// When the run `end` ends began: its launch or wake, from the unit's record; nil when the record holds another run.
    private func runBegan(_ end: MappedTransition) -> Milliseconds? {
        guard let record = tracker.records[end.unit], record.invocationID == end.invocationID else { return nil }
        return [record.state.lastLaunch, record.state.lastWake].compactMap { $0 }.max()
    }

    /// What the journal told of a failed run: recorded with its end once it has said all it will, or read again
    /// later, backing off, for up to ``JournalBarrier/patience``. A dump systemd-coredump never logs in that time is
    /// still recorded as a dump, from the Result, without its cursor.
    mutating func takeRunJournal(_ findings: RunJournalFindings, for query: RunJournalQuery) {
        guard case .runJournal(var end, let asked, let reads)? = awaited, asked.run == query.run else {
            log(.debug, "Ignored a journal read about \(query.run.unit) that was not asked for")
            return
        }
        let awaitsKiller = asked.barrier != nil && findings.oom == nil && !findings.barrierSeen
        let awaitsDump = findings.coreDump == .pending
        if awaitsKiller || awaitsDump, reads < JournalBarrier.readLimit {
            effects.append(.arm(.retryRunJournal, at: uptime + JournalBarrier.delay(afterReads: reads)))
            return
        }
        awaited = nil
        if awaitsDump {
            log(.info, "\(end.unit): systemd-coredump logged no core dump of run \(end.invocationID) within \(JournalBarrier.patience / 1_000) s: recorded without its cursor")
        }
        var found = RunRecord(oom: findings.oom)
        if case .found(let dump)? = findings.coreDump { found.coredump = dump }
        end.run = end.run.merging(found)
        apply(end, version: nil)
    }

    /// The retry timer fired: the journal is read again about the failed run, looking for the probe written at the
    /// first read.
    mutating func readRunJournalAgain() {
        guard case .runJournal(let end, var query, let reads)? = awaited else { return }
        query.barrier?.write = false
        awaited = .runJournal(of: end, query: query, reads: reads + 1)
        effects.append(.readRunJournal(query))
    }
}
