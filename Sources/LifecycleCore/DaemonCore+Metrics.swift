// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema
import LifecycleStorage

/// The metrics file (`metrics_file`): the core keeps lifecycled's health counters and decides when the file is
/// written (``MetricsSchedule``); the loop only writes the text it is given.
extension DaemonCore {
    /// After each input: writes the file when what it shows changed and a second has passed since the last write, or
    /// when the timer says so; arms the timer for what comes next.
    mutating func planMetrics(timerFired: Bool) {
        health.pendingDispatches = outbox.undeliveredCount
        guard let path = configuration.metricsFile, phase != .stopping else { return }
        if timerFired { isMetricsTimerDue = true }
        if effects.contains(where: \.changesRecords) { haveRecordsChanged = true }
        // The loop hands the core an effect's answer before it performs the rest of the effects: plan after the last
        // answer, so that the write shows it and this input's timer never overrides the one armed after it.
        guard !effects.contains(where: \.isPlannedAfter) else { return }
        let changed = haveRecordsChanged || health != metricsHealth || path != metricsPath
        guard changed || isMetricsTimerDue else { return }
        let decision = metricsSchedule.plan(now: uptime, changed: changed, timerFired: isMetricsTimerDue)
        isMetricsTimerDue = false
        switch decision {
        case .write(let nextRefresh):
            haveRecordsChanged = false
            metricsHealth = health
            metricsPath = path
            let text = metricsText()
            metricsSchedule.lastSize = text.utf8.count
            effects.append(.writeMetrics(path: path, text: text))
            effects.append(.arm(.writeMetrics, at: nextRefresh))
        case .arm(let time):
            effects.append(.arm(.writeMetrics, at: time))
        case .wait:
            break
        }
    }

    /// The file's content now: every record but those due for the archive (``GoneUnits/withheld``), and the health
    /// counters.
    func metricsText() -> String {
        let withheld = goneUnits.withheld
        let shown = withheld.isEmpty
            ? Array(tracker.records.values) : tracker.records.values.filter { !withheld.contains($0.unit) }
        return LifecycleMetrics(
            records: shown, now: now, crashLoop: configuration.crashLoop, version: LifecycleVersion.current,
            health: health
        ).render()
    }

    /// Counts what the journal took, by kind.
    mutating func countDelivered(_ dispatches: [PendingDispatch]) {
        for dispatch in dispatches {
            health.dispatches[dispatch.kind?.rawValue ?? DispatchKind.custom.rawValue, default: 0] += 1
        }
    }
}

extension DaemonEffect {
    /// Whether the effect changes what the metrics file shows of the records.
    var changesRecords: Bool {
        switch self {
        case .save, .archive: true
        default: false
        }
    }

    /// Whether the metrics wait for the effect's answer: every answer but a save's, which changes nothing the file
    /// shows but what is degraded, and plans the file itself then.
    var isPlannedAfter: Bool {
        switch self {
        case .save, .saveJournalPosition: false
        default: hasAnswer
        }
    }

    /// Whether the loop answers the effect with an input, at once (see each case).
    var hasAnswer: Bool {
        switch self {
        case .send, .lookUp, .readVersion, .readRunCost, .readTimers, .readMissedStarts, .readRunEnding, .readRunJournal, .readRecovery, .publishManager, .readJournalTail,
            .readArchive, .save, .saveJournalPosition:
            true
        case .archive, .watch, .reply, .notify, .markTracking, .writeMetrics, .arm, .log, .releaseMemory, .trimHeap, .prefetchVersions,
            .writeProbe, .exit:
            false
        }
    }
}

extension PendingDispatch {
    /// The dispatch's kind, from its `MESSAGE_ID`.
    var kind: DispatchKind? {
        guard let id = entry.journalFields[DispatchField.messageID] else { return nil }
        return DispatchKind.allCases.first { $0.messageID == id }
    }
}
