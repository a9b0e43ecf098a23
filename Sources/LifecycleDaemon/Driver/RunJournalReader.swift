// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import LifecycleSystemd
import Logging

/// Reads what the journal tells of a run that just failed beyond its unit's properties (``RunJournalQuery``): PID 1's
/// message of who OOM-killed it, and systemd-coredump's entry of its core dump. Only trusted entries: PID 1's
/// (`_PID=1`), and systemd-coredump's as ``CoreDump/isCoreDump(_:of:bus:)`` tells them.
struct RunJournalReader {
    let logger: Logger

    /// Where the kernel hands core dumps (`core(5)`): global, not namespaced, so a container sees its host's.
    static let corePatternPath = "/proc/sys/kernel/core_pattern"

    /// The findings for `query`, the barrier's look already done (`barrierSeen`).
    func findings(for query: RunJournalQuery, barrierSeen: Bool) -> RunJournalFindings {
        var findings = RunJournalFindings(barrierSeen: barrierSeen)
        if query.barrier != nil { findings.oom = killer(of: query.run) }
        if let span = query.coreDumpSpan { findings.coreDump = coreDump(of: query.run.unit, within: span) }
        return findings
    }

    /// Who OOM-killed the run, by PID 1's messages among the run's entries; nil when they name no killer.
    private func killer(of run: UnitRunID) -> OOMKiller? {
        do {
            let entries = try reader.entries(
                matching: ["_PID=1", "UNIT=\(run.unit)", "INVOCATION_ID=\(run.invocationID)"], fields: ["MESSAGE_ID"]
            )
            return OOMKiller.killer(in: entries.map(Self.engineEntry))
        } catch {
            logger.warning("Failed to read the journal about \(run.unit)", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// systemd-coredump's newest entry of a crash of `unit` within `span`.
    private func coreDump(of unit: String, within span: ClosedRange<Milliseconds>) -> CoreDumpLookup {
        guard let pattern = try? ReadableFile(opening: Self.corePatternPath).readAll(),
            CoreDump.isCollectedBySystemd(corePattern: String(decoding: pattern, as: UTF8.self))
        else { return .unavailable }
        do {
            let found = try reader.newestEntry(
                matching: ["MESSAGE_ID=\(CoreDump.messageID)", "COREDUMP_UNIT=\(unit)"], fields: CoreDump.fields,
                withCursor: true,
                where: { CoreDump.isCrash(Self.engineEntry($0), of: unit, within: span) }
            )
            guard let found else { return .pending }
            return CoreDump(entry: Self.engineEntry(found), cursor: found.cursor).map(CoreDumpLookup.found) ?? .pending
        } catch {
            logger.warning("Failed to read the journal for a core dump of \(unit)", metadata: ["error": "\(error)"])
            return .unavailable
        }
    }

    /// systemd-coredump's entries of crashes within `span`, oldest first, with their cursors: for the runs of a
    /// history that dumped core (``RunHistory/addCoreDumps(_:bus:)``). Empty when the journal cannot be read (logged).
    func coreDumps(within span: ClosedRange<Milliseconds>) -> [(entry: RunEnding.Entry, cursor: String?)] {
        var dumps: [(entry: RunEnding.Entry, cursor: String?)] = []
        do {
            // Written after the crash (once processed): read from the span's start to the end of the journal.
            try reader.forEachEntry(
                matching: ["MESSAGE_ID=\(CoreDump.messageID)"], fields: CoreDump.fields,
                since: UInt64(max(span.lowerBound, 0)) * 1_000, withCursors: true
            ) { found in
                let entry = Self.engineEntry(found)
                if let time = CoreDump.crashTime(entry), span.contains(time) { dumps.append((entry, found.cursor)) }
            }
        } catch {
            logger.warning("Failed to read the journal for core dumps of recovered runs", metadata: ["error": "\(error)"])
        }
        return dumps
    }

    /// An entry as the engine's parsers take it (only its fields count here, not its time).
    private static func engineEntry(_ entry: JournalEntry) -> RunEnding.Entry {
        RunEnding.Entry(messageID: entry.fields["MESSAGE_ID"] ?? "", time: 0, fields: entry.fields)
    }

    private var reader: JournalReader { JournalReader(logging: logger) }
}
