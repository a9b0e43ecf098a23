// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import LifecycleStorage
import Testing

/// Units systemd unloaded: archived after `archive_after_minutes`, back from the archive with their counters when
/// they run again.
struct DaemonCoreArchiveTests {
    typealias H = CoreHarness
    static let hour: Milliseconds = 3_600_000

    /// The journal position lifecycled keeps moves past the present: the tail is read twice, a minute apart, and the
    /// first reading is saved at the second.
    func movePosition(_ h: inout H) {
        for _ in 0..<2 {
            h.now = max(h.now, h.armed[.advanceJournalPosition] ?? 0)
            h.journalTail = JournalPosition(
                cursor: "s=\(h.now)", bootID: String(repeating: "b", count: 32), monotonicMicroseconds: 0,
                realtimeMicroseconds: UInt64(h.now) * 1_000
            )
            h.fire(.advanceJournalPosition)
            h.now += 1_000
        }
    }

    /// Tracking, after one run of web.service (dispatches 1 and 2, confirmed by the journal).
    func afterOneRun(archiveAfterMinutes: Int = 60, metricsFile: String? = nil) throws -> H {
        var h = try H(metricsFile: metricsFile, archiveAfterMinutes: archiveAfterMinutes)
        h.send(.start)
        h.send(.listing([]))
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        h.now = H.t0 + 3_000
        h.fire(.confirmDelivery)
        #expect(h.dispatches() == ["1 launch a", "2 sleep a"])
        #expect(h.core.tracker.records[H.unit]?.pendingDispatches.isEmpty == true)
        #expect(h.archiveReads == [[H.unit]], "its first sighting")
        h.archiveReads = []
        return h
    }

    /// systemd unloads web.service, the journal position moves past it, and the archive's timer fires.
    func unloadAndArchive(_ h: inout H) {
        h.send(.unitRemoved(H.unit))
        movePosition(&h)
        h.fire(.archiveGoneUnits)
    }

    @Test("a unit unloaded for archive_after_minutes is archived; when it runs again its counters go on")
    func archivedAndBack() throws {
        var h = try afterOneRun()
        h.send(.unitRemoved(H.unit))
        #expect(h.armed[.archiveGoneUnits] == H.t0 + 3_000 + Self.hour)
        movePosition(&h)
        h.fire(.archiveGoneUnits)
        #expect(h.core.tracker.records[H.unit] == nil, "the record left memory")
        #expect(h.archive[H.unit]?.sequence == 2)
        #expect(h.archive[H.unit]?.state.totalLaunchCount == 1)
        #expect(h.logs.contains { $0.message.contains("Archived the records of 1 units") })

        h.now += 1_000
        h.send(.changed(H.snapshot("active", "b", second: 4_000)))
        #expect(h.archiveReads == [[H.unit]], "asked once, at its first sighting")
        #expect(h.dispatches() == ["1 launch a", "2 sleep a", "3 wake b"], "numbered and counted after the archive's")
        #expect(h.core.tracker.records[H.unit]?.state.totalLaunchCount == 1)
        #expect(h.core.tracker.records[H.unit]?.state.totalWakeCount == 2)
        #expect(h.saved.contains { $0.unit == H.unit && $0.sequence == 2 }, "the record is saved back first")
        h.send(.changed(H.snapshot("inactive", "b", second: 4_001)))
        #expect(h.archiveReads.count == 1, "a unit seen is not looked up again")
        #expect(h.dispatches().last == "4 sleep b")
    }

    @Test("a new name's run asks the archive once: its InvocationID shown while inactive, then its begin")
    func newNameAskedOnce() throws {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        h.send(.changed(H.snapshot("inactive", "a", second: 1)))
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        #expect(h.archiveReads == [[H.unit]])
        #expect(h.dispatches() == ["1 launch a", "2 sleep a"])
    }

    @Test("a unit the archive did not hold, archived since (gone from a listing, never unloaded): asked again, counted on")
    func notArchivedThenArchived() throws {
        var h = try H(archiveAfterMinutes: 0)
        h.send(.start)
        h.send(.listing([]))
        h.send(.changed(H.snapshot("inactive", "a", second: 1)))
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        h.now = H.t0 + 3_000
        h.fire(.confirmDelivery)
        // Gone while the bus was away: a listing that lacks it, no unitRemoved.
        h.send(.signalsLost)
        h.send(.listing([]))
        movePosition(&h)
        h.fire(.archiveGoneUnits)
        #expect(h.archive[H.unit]?.sequence == 2)
        h.send(.changed(H.snapshot("active", "b", second: 4_000)))
        #expect(h.archiveReads == [[H.unit], [H.unit]])
        #expect(h.dispatches().suffix(1) == ["3 wake b"], "numbered and counted after the archive's")
    }

    @Test("archiving tells the archive which records have expired: last active more than archive_retention_days ago")
    func retention() throws {
        var h = try afterOneRun()
        unloadAndArchive(&h)
        #expect(h.archiveExpiredBefore == [h.now - 90 * 24 * Self.hour])
    }

    @Test("a unit whose record expired from the archive (its tombstone left) comes back counted afresh, numbered on")
    func backFromTombstone() throws {
        var h = try afterOneRun()
        unloadAndArchive(&h)
        // Retention cut the record to its tombstone at a compaction.
        h.archive[H.unit] = try #require(h.archive[H.unit]).tombstone
        h.now += 1_000
        h.send(.changed(H.snapshot("active", "b", second: 4_000)))
        #expect(h.dispatches() == ["1 launch a", "2 sleep a", "3 launch b"], "a fresh launch, numbered after the last dispatch")
        let record = try #require(h.core.tracker.records[H.unit])
        #expect(record.state.totalLaunchCount == 1 && record.retired == nil, "no longer a tombstone")
        #expect(h.logs.contains { $0.message.contains("expired from the archive") })
    }

    @Test("archive_retention_days -1 keeps every archived record")
    func retentionForever() throws {
        var h = try afterOneRun()
        var configuration = h.core.configuration
        configuration.archiveRetentionDays = -1
        h.send(.reloaded(.success(ReloadedConfiguration(configuration: configuration, timeZone: H.utc))))
        unloadAndArchive(&h)
        #expect(h.archiveExpiredBefore == [nil])
    }

    @Test("archived, then shown loaded without a run (no InvocationID) before it runs again: its run still brings the record back")
    func shownWithoutRunThenRuns() throws {
        var h = try afterOneRun(archiveAfterMinutes: 0)
        unloadAndArchive(&h)
        #expect(h.archive[H.unit]?.sequence == 2)
        var loaded = H.snapshot("inactive", "a", second: 3_999)
        loaded.invocationID = ""
        h.send(.changed(loaded))
        h.send(.changed(H.snapshot("active", "c", second: 4_000)))
        #expect(h.dispatches().last == "3 wake c", "numbered and counted after the archive's, not launch #1")
        #expect(h.core.tracker.records[H.unit]?.state.totalLaunchCount == 1)
    }

    @Test("a unit that comes back before archive_after_minutes stays")
    func returnsInTime() throws {
        var h = try afterOneRun()
        h.send(.unitRemoved(H.unit))
        h.now += 10 * 60_000
        h.send(.changed(H.snapshot("active", "b", second: 700)))
        h.fire(.archiveGoneUnits)
        #expect(h.archive.isEmpty)
        #expect(h.core.tracker.records[H.unit]?.sequence == 3)
        #expect(h.archiveReads.isEmpty, "a unit in memory needs no look-up")
    }

    @Test("a listing that lacks a recorded unit counts it as gone")
    func goneFromListing() throws {
        let old = UnitRecord(unit: "web-old.service", sequence: 7)
        var h = try H(records: [old])
        h.send(.start)
        h.send(.listing([]))
        #expect(h.armed[.archiveGoneUnits] == H.t0 + Self.hour)
        movePosition(&h)
        h.fire(.archiveGoneUnits)
        #expect(h.archive["web-old.service"]?.sequence == 7)
        #expect(h.core.tracker.records.isEmpty)
    }

    @Test("a record with a dispatch the journal has not shown yet waits for it")
    func pendingWaits() throws {
        var h = try H(archiveAfterMinutes: 0)
        h.journalReadable = false
        h.send(.start)
        h.send(.listing([]))
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        unloadAndArchive(&h)
        #expect(h.archive.isEmpty)
        #expect(h.armed[.archiveGoneUnits] == h.now + 5_000, "looked at again a little later")

        h.journalReadable = true
        h.fire(.confirmDelivery)
        h.fire(.archiveGoneUnits)
        #expect(h.archive[H.unit]?.sequence == 2)
    }

    @Test("a unit whose latest record the state directory did not take waits for the archive until it did")
    func unsavedWaits() throws {
        var h = try H(archiveAfterMinutes: 0)
        h.send(.start)
        h.send(.listing([]))
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        h.unwritable = StateDirectoryProblem(directory: "/var/lib/lifecycled", step: "write", errno: 28)
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        h.now = H.t0 + 3_000
        h.fire(.confirmDelivery)
        unloadAndArchive(&h)
        #expect(h.archive.isEmpty, "its state file is behind: archived from memory, a failure would leave it behind")
        h.unwritable = nil
        h.fire(.retrySaves)
        #expect(h.saved.last?.sequence == 2)
        h.fire(.archiveGoneUnits)
        #expect(h.archive[H.unit]?.sequence == 2)
    }

    @Test("work waiting in line does not hold the archive back: under a steady churn there always is some")
    func archivesWhileBusy() throws {
        var h = try afterOneRun(archiveAfterMinutes: 0)
        h.send(.unitRemoved(H.unit))
        movePosition(&h)
        h.holdVersions = true
        h.send(.changed(H.snapshot("active", "b", second: 5, unit: "web-2.service")))
        h.send(.changed(H.snapshot("active", "c", second: 6)))
        #expect(h.heldVersionReads == ["web-2.service"], "a begin waits for its version, and a change behind it")
        h.fire(.archiveGoneUnits)
        #expect(h.archive[H.unit]?.sequence == 2, "archived although work waits")

        // The change that waited finds web.service unknown, and brings its record back first.
        h.send(.versionRead(unit: "web-2.service", version: "1"))
        h.send(.versionRead(unit: H.unit, version: "1"))
        #expect(h.dispatches().last == "3 wake c")
    }

    @Test("a unit gone after the saved journal position waits for it: the next start would read its runs back")
    func waitsForThePosition() throws {
        var h = try afterOneRun(archiveAfterMinutes: 0)
        h.send(.unitRemoved(H.unit))
        h.fire(.archiveGoneUnits)
        #expect(h.archive.isEmpty, "no position saved since it went")
        movePosition(&h)
        h.fire(.archiveGoneUnits)
        #expect(h.archive[H.unit]?.sequence == 2)
    }

    @Test("a unit due for the archive that waits for the journal position leaves the metrics at once; back when loaded again")
    func waitingUnitLeavesTheMetrics() throws {
        var h = try afterOneRun(archiveAfterMinutes: 0, metricsFile: "/run/lifecycled.prom")
        h.send(.unitRemoved(H.unit))
        h.now += 2_000
        h.fire(.archiveGoneUnits)
        #expect(h.core.tracker.records[H.unit] != nil, "no position saved since it went: the record waits")
        h.now += 2_000
        h.fire(.writeMetrics)
        let waiting = try #require(h.metricsWrites.last)
        #expect(waiting.time == h.now && !waiting.text.contains(H.unit), "as good as archived: not shown")

        h.now += 2_000
        h.send(.changed(H.snapshot("active", "b", second: 10)))
        h.now += 2_000
        h.fire(.writeMetrics)
        #expect(h.metricsWrites.last?.text.contains(H.unit) == true, "loaded again: shown again")
    }

    @Test("while units wait for the journal position, it is read every 10 s rather than every minute")
    func positionReadOftenWhileUnitsWait() throws {
        var h = try afterOneRun(archiveAfterMinutes: 0)
        h.fire(.advanceJournalPosition)
        #expect(h.armed[.advanceJournalPosition] == h.now + 60_000, "nothing waits")
        h.send(.unitRemoved(H.unit))
        #expect(h.armed[.advanceJournalPosition] == h.now + 10_000, "the first unit to wait moves the reading closer")
        h.fire(.advanceJournalPosition)
        #expect(h.armed[.advanceJournalPosition] == h.now + 10_000)
    }

    @Test("an idle journal: its tail read again unchanged after the unit went holds the unit's entries, so it is past")
    func idleJournal() throws {
        var h = try afterOneRun(archiveAfterMinutes: 0)
        h.journalTail = JournalPosition(
            cursor: "s=idle", bootID: String(repeating: "b", count: 32), monotonicMicroseconds: 0,
            realtimeMicroseconds: UInt64(H.t0) * 1_000
        )
        h.fire(.advanceJournalPosition)
        h.now += 1_000
        h.send(.unitRemoved(H.unit))
        h.fire(.advanceJournalPosition)
        h.fire(.archiveGoneUnits)
        #expect(h.archive.isEmpty, "the position saved was read before the unit went")
        h.fire(.advanceJournalPosition)
        h.fire(.archiveGoneUnits)
        #expect(h.archive[H.unit]?.sequence == 2, "read again after it went, unchanged")
        #expect(h.savedPositions.count == 1, "nothing new to write")
    }

    @Test("archive_after_minutes -1 keeps every record")
    func never() throws {
        var h = try afterOneRun(archiveAfterMinutes: -1)
        h.send(.unitRemoved(H.unit))
        #expect(h.armed[.archiveGoneUnits] == nil)
        h.send(.timer(.archiveGoneUnits))
        #expect(h.core.tracker.records[H.unit] != nil)
    }

    @Test("an archive that cannot be read starts no fresh record: the change waits, read again less often, until it answers")
    func unreadableArchive() throws {
        var h = try afterOneRun(archiveAfterMinutes: 0)
        unloadAndArchive(&h)
        h.archiveReadable = false
        let failedAt = h.now
        h.send(.changed(H.snapshot("active", "b", second: 10)))
        h.send(.changed(H.snapshot("inactive", "b", second: 11)))
        #expect(h.dispatches() == ["1 launch a", "2 sleep a"], "nothing recorded on a fresh record")
        #expect(h.logs.contains { $0.level == .warning && $0.message.contains("archive could not be read") })
        #expect(h.armed[.retryArchive] == failedAt + 1_000)
        h.fire(.retryArchive)
        #expect(h.armed[.retryArchive] == failedAt + 1_000 + 2_000, "then less often")
        #expect(h.archiveReads.count == 2)

        h.archiveReadable = true
        h.fire(.retryArchive)
        #expect(h.dispatches() == ["1 launch a", "2 sleep a", "3 wake b", "4 sleep b"], "numbered on, in order")
        #expect(h.core.tracker.records[H.unit]?.state.totalLaunchCount == 1)
        #expect(h.logs.contains { $0.level == .notice && $0.message.contains("archive could be read again") })
    }

    /// A unit driven only by manual events (autotracking off), whose record went to the archive: systemd never lists
    /// it, so only its events can bring the record back.
    func archivedManualUnit() throws -> H {
        let job = UnitRecord(unit: "web-job.service", sequence: 2)
        var h = try H(records: [job], autotracking: false, archiveAfterMinutes: 0)
        h.archive = [:]
        h.send(.start)
        h.send(.listing([]))
        movePosition(&h)
        h.fire(.archiveGoneUnits)
        #expect(h.archive["web-job.service"]?.sequence == 2)
        #expect(h.core.tracker.records["web-job.service"] == nil)
        return h
    }

    @Test("a manual or custom event of an archived unit brings its record back first: numbered and counted on")
    func manualEventOfArchivedUnit() throws {
        var h = try archivedManualUnit()
        var record = h.archive["web-job.service"]!
        record.state.totalLaunchCount = 1
        h.archive["web-job.service"] = record
        h.send(.request(EventRequest(unit: "web-job.service", event: .lifecycle(.launch)), reply: ReplyToken(1)))
        #expect(h.archiveReads.last == ["web-job.service"])
        #expect(h.replies[ReplyToken(1)] == .success(3), "dispatch 3, after the archived 2")
        #expect(h.core.tracker.records["web-job.service"]?.state.totalLaunchCount == 2)
        h.send(.request(EventRequest(unit: "web-job.service", event: .custom("backup")), reply: ReplyToken(2)))
        #expect(h.replies[ReplyToken(2)] == .success(4))
        #expect(h.archiveReads.count == 1, "a unit in memory is not looked up again")
    }

    @Test("an event of an archived unit while the archive cannot be read is refused, saying why; nothing is recorded")
    func manualEventWhileArchiveUnreadable() throws {
        var h = try archivedManualUnit()
        h.archiveReadable = false
        h.send(.request(EventRequest(unit: "web-job.service", event: .custom("backup")), reply: ReplyToken(1)))
        #expect(h.replies[ReplyToken(1)] == .failure(.archiveUnreadable("web-job.service")))
        #expect(h.core.tracker.records["web-job.service"] == nil)
        h.archiveReadable = true
        h.send(.request(EventRequest(unit: "web-job.service", event: .custom("backup")), reply: ReplyToken(2)))
        #expect(h.replies[ReplyToken(2)] == .success(3))
    }

    @Test("a first listing asks the archive about its running units in one look-up, before it is taken")
    func listingLooksUpOnce() throws {
        var h = try H()
        h.archive[H.unit] = UnitRecord(unit: H.unit, sequence: 5)
        h.send(.start)
        h.send(.listing([
            H.snapshot("active", "a", second: 1),
            H.snapshot("active", "b", second: 1, unit: "web-2.service"),
            H.snapshot("inactive", "c", second: 1, unit: "other.service"),
        ]))
        #expect(h.archiveReads == [["web-2.service", "web.service"]], "watched units only")
        #expect(h.dispatches().first == "6 launch a reconciled", "numbered after the archived record's 5")
    }

    @Test("killed between the archive's append and the state file's removal: the state file is the record, the archive's copy is not read over it")
    func killedWhileArchiving() throws {
        // The archive holds the record lifecycled appended before it died; the state file it had not removed yet
        // holds the same unit, and, since the unit ran again, newer.
        var h = try H(records: [UnitRecord(unit: H.unit, invocationID: H.run("z"), runEnded: true, sequence: 7)])
        h.archive[H.unit] = UnitRecord(unit: H.unit, sequence: 5)
        h.send(.start)
        h.send(.listing([H.snapshot("active", "a", second: 1)]))
        #expect(!h.archiveReads.joined().contains(H.unit), "a unit with a state file is not looked up")
        #expect(h.dispatches().first == "8 launch a reconciled", "numbered after the state file's 7, not the archive's 5")
    }
}
