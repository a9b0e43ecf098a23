// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// Getting every dispatch into the journal exactly once, as bookkeeping without I/O (docs/journal.md, "Delivery, and
/// what the state file keeps").
///
/// A unit's record, holding each of its dispatches the journal has not confirmed yet, is saved before the newest of
/// them is sent, and saved again without them once the journal is seen to hold them; so after lifecycled dies, the
/// dispatches that may be missing from the journal are all in the records, and none that the journal confirmed is
/// among them, whatever journal retention removed since. While lifecycled runs:
/// - entries go out in the order they were made, one batch at a time; an entry the journal refuses stops the batch
///   and, with everything after it, is tried again a second later;
/// - a sent entry is looked for in the journal until it is found (``JournalCheck``), and the journal synced after the
///   look (found but not known durable, it is looked for again: docs/journal.md, "A power cut"). journald takes entries in the
///   order they were sent and may take its time (a stalled or busy journald), so a missing entry is only taken as
///   dropped (journald's rate limit) on evidence: an entry sent after it is there (a later dispatch, or a probe
///   written after a look that found entries missing), or, for an entry an earlier lifecycled left, PID 1's entry
///   about starting this one; an entry of this process's own only when the next look misses it again. Never on a
///   timer: slow is not lost.
struct Outbox: Sendable {
    /// A sent entry not yet found in the journal.
    struct Unconfirmed: Sendable {
        var dispatch: PendingDispatch
        /// When this process sent it, by the wall clock (compared with the journal's oldest entry); nil for an entry
        /// an earlier process left pending (sent before all of ours).
        var sentAt: Milliseconds?
        /// When this process sent it, or took it from the state files for an entry an earlier process left, by the
        /// monotonic clock: when to look, and how long the journal has not shown it.
        var sentUptime: Uptime?
        /// Whether a look missed it with no evidence either way (nothing of this process's sent after it there): only
        /// such entries are given up past the bound, never one a look has not asked about yet, nor one a later
        /// entry shows dropped (it is sent again).
        var wasMissed = false
    }

    /// What one look at the journal decided.
    struct Confirmation: Sendable {
        /// Found in the journal, or sent before the oldest entry the journal still holds (for an earlier process's,
        /// made before it): retention may have removed it, and sending it again could count it twice. Not sent again.
        var delivered: [PendingDispatch] = []
        /// Of ``delivered``, those the journal can no longer tell about (made before its oldest entry).
        var beyondRetention: [PendingDispatch] = []
        /// Missing although a later entry is there: journald dropped them; they are queued to be sent again.
        var dropped: [PendingDispatch] = []
        /// Missing with no evidence yet: still looked for.
        var waiting = 0
        /// Missing on evidence for the first time: looked for once more before they are taken as dropped.
        var suspected = 0
        /// Found, but the journal was not synced after the look (``JournalCheck/synced``): not delivered yet, looked
        /// for again.
        var unsynced = 0
        /// The probe to write now, after the entries still missing, so that the next look can tell.
        var probe: UInt64?
    }

    static let retryDelay: Milliseconds = 1_000
    /// The first look after a send, and the shortest interval between looks while tracking: each look opens the
    /// journal, and a busy machine dispatches hundreds a second.
    static let lookInterval: Milliseconds = 1_000
    /// The longest interval between looks while entries stay missing with no evidence (a journald stopped for long).
    static let longestLookInterval: Milliseconds = 30_000
    /// While recovering a long history: looks follow sends at once, then every 5 ms doubling up to a second.
    static let shortestRecoveryLookInterval: Milliseconds = 5
    /// At most this many dispatches are made but not confirmed while recovering, so that a state file holds at most
    /// this many pending dispatches (each about 3 KB of JSON) however long the history is.
    static let recoveryBound = 16
    /// The same, for a while after a live unit changed during the recovery (``DaemonCore/recoveryRound``): a live
    /// dispatch waits in journald behind the round's entries sent before it, sixteen of them about 5 ms.
    static let liveRecoveryBound = 4
    /// Once the journal has shown none of this process's entries for ``unshownPatience``, at most this many of a
    /// unit's sent entries wait for it; older ones are given up (kept as sent, no longer in the record). A journald
    /// that stores nothing below notice (`MaxLevelStore=`, `LogLevelMax=`, `Storage=none`) never shows them, and each
    /// waiting dispatch is about 3 KB of its state file: the file stays bounded, and its counters are right either
    /// way (docs/journal.md, "A journal that stores nothing").
    static let unconfirmedBoundPerUnit = 16
    /// How long this process's oldest sent entry may stay unshown, looks succeeding, before the journal is said not
    /// to show lifecycled's entries: longer than any stall the daemon rides out quietly (journald restarts, a
    /// vacuum), short enough that an operator learns of it the same minute.
    static let unshownPatience: Milliseconds = 60_000

    /// Made, not handed out yet: behind the batch in flight, or refused and waiting for the retry.
    private(set) var queued: [PendingDispatch] = []
    /// Handed out in the last `send`, waiting for its answer.
    private(set) var inFlight: [PendingDispatch] = []
    private(set) var isWaitingForRetry = false
    /// Entries sent since the journal last refused one (for one log line once it takes them all).
    private(set) var sentSinceRefusal: Int?
    /// When the journal began refusing entries, until it takes them all again.
    private(set) var refusingSince: Uptime?
    /// Sent entries, in the order they were sent (an earlier process's first), until the journal is seen to hold them.
    private(set) var unconfirmed: [Unconfirmed] = [] {
        didSet { leftoverCount = unconfirmed.prefix { $0.sentAt == nil }.count }
    }
    /// How many of ``unconfirmed`` an earlier process left (all of them first).
    private var leftoverCount = 0
    /// ``unconfirmed`` per unit: counted as entries are sent, and afresh whenever entries leave or are adopted.
    private var tally = UnconfirmedTally()
    private var lastLook: Uptime?
    /// The interval to the next look while entries stay missing with no evidence: doubles each time, back to the
    /// shortest once a look finds something.
    private var backoff: Milliseconds?
    private(set) var isConfirmationArmed = false
    /// The newest probe written, with the entries sent before it that were still missing then.
    private var probe: (number: UInt64, before: Set<DispatchKey>)?
    private var probesWritten: UInt64 = 0
    /// This process's entries that one look found missing while a later one was there: dropped only if the next look,
    /// with a reader of its own, misses them too. A reader opened while journald rotates its file can miss the file
    /// just archived, older entries and all, and still see newer ones in the new file.
    private var suspects: Set<DispatchKey> = []

    /// Whether sent entries are looked for at all (only root can read and trust the whole journal); when not, an entry
    /// is taken as delivered once the journal accepted it.
    let confirms: Bool

    init(confirms: Bool) {
        self.confirms = confirms
    }

    /// Made and not yet taken by the journal.
    var undeliveredCount: Int { queued.count + inFlight.count }
    /// Made and not yet confirmed.
    var unconfirmedCount: Int { undeliveredCount + unconfirmed.count }

    /// True when recovery must wait for the journal before making more dispatches: the entries this process made
    /// and the journal has not confirmed reach `bound` (``recoveryBound``, or ``liveRecoveryBound``). Entries an
    /// earlier process left are bounded already (in their state files), and a journal that shows nothing
    /// (`journalShowsNothing`: said degraded) is not waited for: its entries are bounded per unit instead
    /// (``giveUpBeyondBound(journalShowsNothing:)``). Waiting for either would hold a start's READY for as long as the
    /// journal stores nothing below notice.
    func isFullForRecovery(journalShowsNothing: Bool, bound: Int = recoveryBound) -> Bool {
        confirms && !journalShowsNothing && unconfirmedCount - leftoverCount >= bound
    }

    mutating func enqueue(_ dispatch: PendingDispatch) {
        queued.append(dispatch)
    }

    /// Takes the dispatches an earlier process saved as pending, at `uptime`: they are looked for before anything is
    /// sent again, and count towards a journal that shows nothing as this process's own do (a restart while journald
    /// stores nothing below notice leaves them waiting).
    mutating func adoptLeftovers(_ dispatches: [PendingDispatch], uptime: Uptime) {
        unconfirmed.insert(contentsOf: dispatches.map { Unconfirmed(dispatch: $0, sentAt: nil, sentUptime: uptime) }, at: 0)
        tally.recount(unconfirmed.lazy.map(\.dispatch.unit))
    }

    /// The next batch to send, when nothing is in flight and no retry is pending.
    mutating func takeBatch() -> [PendingDispatch]? {
        guard inFlight.isEmpty, !isWaitingForRetry, !queued.isEmpty else { return nil }
        inFlight = queued
        queued = []
        return inFlight
    }

    /// The journal took the first `count` entries in flight, and refused the next one when `refused`.
    ///
    /// - Returns: the entries the journal took (delivered already when nothing ``confirms``), and when to retry (nil
    ///   unless refused).
    mutating func sent(
        count: Int, refused: Bool, now: Milliseconds, uptime: Uptime
    ) -> (taken: [PendingDispatch], retryAt: Uptime?) {
        let taken = Array(inFlight.prefix(count))
        let rest = inFlight.dropFirst(count)
        inFlight = []
        if confirms {
            unconfirmed.append(contentsOf: taken.map { Unconfirmed(dispatch: $0, sentAt: now, sentUptime: uptime) })
            for dispatch in taken { tally.add(dispatch.unit) }
        }
        if sentSinceRefusal != nil { sentSinceRefusal! += taken.count }
        guard refused else {
            return (taken, nil)
        }
        sentSinceRefusal = sentSinceRefusal ?? 0
        refusingSince = refusingSince ?? uptime
        queued.insert(contentsOf: rest, at: 0)
        isWaitingForRetry = true
        return (taken, uptime + Self.retryDelay)
    }

    /// Gives up the oldest sent entries of each unit beyond ``unconfirmedBoundPerUnit`` that a look missed, while the
    /// journal shows none of this process's entries (`journalShowsNothing`: for ``unshownPatience``): they are no
    /// longer looked for, nor sent again. A journal that shows some entries and not others is dropping them (its rate
    /// limit, which can hold a burst back for its whole interval): those are sent again, never given up.
    ///
    /// - Returns: the entries given up, oldest first.
    mutating func giveUpBeyondBound(journalShowsNothing: Bool) -> [PendingDispatch] {
        guard journalShowsNothing, unconfirmed.count > Self.unconfirmedBoundPerUnit else { return [] }
        var counts: [String: Int] = [:]
        var kept: [Unconfirmed] = []
        var givenUp: [PendingDispatch] = []
        for item in unconfirmed.reversed() {
            counts[item.dispatch.unit, default: 0] += 1
            if counts[item.dispatch.unit]! > Self.unconfirmedBoundPerUnit, item.wasMissed {
                givenUp.append(item.dispatch)
                suspects.remove(DispatchKey(item.dispatch))
            } else {
                kept.append(item)
            }
        }
        guard !givenUp.isEmpty else { return [] }
        unconfirmed = kept.reversed()
        tally.recount(unconfirmed.lazy.map(\.dispatch.unit))
        return givenUp.reversed()
    }

    /// Gives up the oldest entries of each unit beyond ``unconfirmedBoundPerUnit`` that wait to be sent, once the
    /// journal has refused entries for ``unshownPatience`` (journald and its sockets stopped, say): each waiting entry
    /// is about 3 KB of its unit's state file, so that the file stays bounded however long the journal refuses. They
    /// never reach the journal; the records keep their counters.
    ///
    /// - Returns: the entries given up, oldest first.
    mutating func giveUpRefusedBeyondBound(now: Uptime) -> [PendingDispatch] {
        guard let since = refusingSince, now - since >= Self.unshownPatience, queued.count > Self.unconfirmedBoundPerUnit
        else { return [] }
        var counts: [String: Int] = [:]
        var kept: [PendingDispatch] = []
        var givenUp: [PendingDispatch] = []
        for dispatch in queued.reversed() {
            counts[dispatch.unit, default: 0] += 1
            if counts[dispatch.unit]! > Self.unconfirmedBoundPerUnit {
                givenUp.append(dispatch)
            } else {
                kept.append(dispatch)
            }
        }
        guard !givenUp.isEmpty else { return [] }
        queued = kept.reversed()
        return givenUp.reversed()
    }

    /// Whether a unit has more than twice the bound of sent entries waiting and the last look was a while ago: then
    /// the journal is looked at now rather than at the timer (which backs off to 30 s while nothing is found), so
    /// that the entries beyond the bound are asked about, and given up if missed, within a second.
    func needsEarlyLook(now: Uptime) -> Bool {
        tally.most > 2 * Self.unconfirmedBoundPerUnit && now - (lastLook ?? .zero) >= Self.lookInterval
    }

    /// When this process sent its oldest entry the journal has not shown yet; nil when none waits.
    var oldestUnshownSentAt: Uptime? {
        unconfirmed.lazy.compactMap(\.sentUptime).first
    }

    /// The retry timer fired: the queue may be sent again.
    mutating func retryDue() {
        isWaitingForRetry = false
    }

    /// Once the journal took everything after a refusal: how many entries it took since.
    mutating func takeRecoveredCount() -> Int? {
        guard let count = sentSinceRefusal, queued.isEmpty, inFlight.isEmpty, !isWaitingForRetry else { return nil }
        sentSinceRefusal = nil
        refusingSince = nil
        return count
    }

    /// When to look for sent entries next, if the confirmation timer must be armed now. While `recovering`, looks
    /// follow at once and then quickly: recovery waits for them.
    mutating func confirmationToArm(now: Uptime, recovering: Bool) -> Uptime? {
        guard !isConfirmationArmed, let oldest = unconfirmed.first else { return nil }
        isConfirmationArmed = true
        if recovering {
            return now + (backoff.map { min($0, Self.lookInterval) } ?? 0)
        }
        let earliest = (oldest.sentUptime ?? now) + Self.lookInterval
        return max(earliest, (lastLook ?? .zero) + (backoff ?? Self.lookInterval))
    }

    /// The confirmation timer fired: every entry not yet confirmed, in the order sent, to look for now, and the
    /// probe to look for with them.
    mutating func takeForConfirmation(now: Uptime) -> (dispatches: [PendingDispatch], probe: UInt64?) {
        isConfirmationArmed = false
        lastLook = now
        return (unconfirmed.map(\.dispatch), probe?.number)
    }

    /// What the journal said about `dispatches` (as ``takeForConfirmation(now:)`` gave them): found entries are
    /// delivered, missing ones dropped only on evidence (see the type's comment), the rest still looked for.
    mutating func confirm(_ dispatches: [PendingDispatch], check: JournalCheck, recovering: Bool) -> Confirmation {
        var found: Set<DispatchKey> = []
        for (dispatch, isThere) in zip(dispatches, check.found) where isThere { found.insert(DispatchKey(dispatch)) }
        let asked = Set(dispatches.map(DispatchKey.init))
        // The last of this process's entries found: every entry sent before it was taken or dropped by journald.
        let lastOwnFound = unconfirmed.lastIndex { $0.sentAt != nil && found.contains(DispatchKey($0.dispatch)) }
        let beforeProbe = check.probeFound ? probe?.before ?? [] : []
        var result = Confirmation()
        var still: [Unconfirmed] = []
        for (index, item) in unconfirmed.enumerated() {
            let key = DispatchKey(item.dispatch)
            guard asked.contains(key) else {
                still.append(item)
                continue
            }
            if found.contains(key) {
                suspects.remove(key)
                if check.synced {
                    result.delivered.append(item.dispatch)
                } else {
                    // In journald's file, perhaps only in memory: a power cut could take it from the journal after
                    // its state file no longer held it.
                    result.unsynced += 1
                    still.append(item)
                }
            } else if let heldSince = check.heldSince, let time = item.sentAt ?? item.dispatch.eventTime,
                time < heldSince
            {
                // Sent (or, for an earlier process's entry, made) before the oldest entry the journal holds: retention
                // may have removed it (a vacuum between its writing and this look), and sending it again could count
                // it twice.
                suspects.remove(key)
                result.delivered.append(item.dispatch)
                result.beyondRetention.append(item.dispatch)
            } else if suspects.contains(key) {
                suspects.remove(key)
                result.dropped.append(item.dispatch)
            } else if index < lastOwnFound ?? -1 || beforeProbe.contains(key) {
                // One of this process's entries, with one it sent later there: dropped if the next look agrees.
                suspects.insert(key)
                result.suspected += 1
                still.append(item)
            } else if item.sentAt == nil && (check.earlierProcessesDone || lastOwnFound != nil) {
                result.dropped.append(item.dispatch)
            } else {
                result.waiting += 1
                var item = item
                item.wasMissed = true
                still.append(item)
            }
        }
        unconfirmed = still
        tally.recount(unconfirmed.lazy.map(\.dispatch.unit))
        queued.insert(contentsOf: result.dropped, at: 0)
        if check.probeFound { probe = nil }
        if result.waiting > 0 {
            probesWritten += 1
            probe = (probesWritten, Set(still.map { DispatchKey($0.dispatch) }))
            result.probe = probesWritten
        }
        if result.delivered.isEmpty, result.dropped.isEmpty, result.suspected == 0 {
            backOff(recovering: recovering)
        } else {
            backoff = nil
        }
        return result
    }

    /// The journal could not be read: look again later, less often each time.
    mutating func lookFailed(recovering: Bool) {
        backOff(recovering: recovering)
    }

    /// A look found nothing new: the next one comes later, twice as late each time up to ``longestLookInterval``.
    private mutating func backOff(recovering: Bool) {
        let shortest = recovering ? Self.shortestRecoveryLookInterval : Self.lookInterval
        backoff = min(Self.longestLookInterval, backoff.map { $0 * 2 } ?? shortest)
    }
}

/// A dispatch's identity: its unit and number.
private struct DispatchKey: Hashable {
    var unit: String
    var sequence: UInt64

    init(_ dispatch: PendingDispatch) {
        unit = dispatch.unit
        sequence = dispatch.sequence
    }
}
