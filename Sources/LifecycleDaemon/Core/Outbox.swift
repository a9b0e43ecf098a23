// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// Getting every dispatch into the journal exactly once, as bookkeeping without I/O (DESIGN §9).
///
/// A unit's record, holding each of its dispatches the journal has not taken yet, is saved before the newest of
/// them is sent; so after lifecycled dies, the dispatches that may be missing from the journal are all in the records,
/// and the next start looks each up and sends only those missing. While lifecycled runs:
/// - entries go out in the order they were made, one batch at a time; an entry the journal refuses stops the batch
///   and, with everything after it, is tried again a second later;
/// - journald can drop an entry it accepted (its rate limit): a few seconds after each send the entry is looked for,
///   at most once a second, and sent again when missing.
struct Outbox: Sendable {
    static let retryDelay: Milliseconds = 1_000
    static let confirmationDelay: Milliseconds = 3_000
    /// At most one look a second: each opens the journal, and a busy machine dispatches hundreds a second.
    static let confirmationInterval: Milliseconds = 1_000
    /// At most this many sent entries wait to be confirmed; older ones are no longer looked for.
    static let maximumUnconfirmed = 20_000

    /// Made, not handed out yet: behind the batch in flight, or refused and waiting for the retry.
    private(set) var queued: [PendingDispatch] = []
    /// Handed out in the last `send`, waiting for its answer.
    private(set) var inFlight: [PendingDispatch] = []
    private(set) var isWaitingForRetry = false
    /// Entries sent since the journal last refused one (for one log line once it takes them all).
    private(set) var sentSinceRefusal: Int?
    /// Sent entries with their send time, oldest first, until they are looked for.
    private var unconfirmed: [(dispatch: PendingDispatch, sentAt: Milliseconds)] = []
    private var lastConfirmation: Milliseconds?
    private(set) var isConfirmationArmed = false

    /// Whether sent entries are looked for at all (only root can read and trust the whole journal).
    let confirms: Bool

    init(confirms: Bool) {
        self.confirms = confirms
    }

    var undeliveredCount: Int { queued.count + inFlight.count }

    mutating func enqueue(_ dispatch: PendingDispatch) {
        queued.append(dispatch)
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
    /// - Returns: the entries delivered, and when to retry (nil unless refused).
    mutating func sent(count: Int, refused: Bool, now: Milliseconds) -> (delivered: [PendingDispatch], retryAt: Milliseconds?) {
        let delivered = Array(inFlight.prefix(count))
        let rest = inFlight.dropFirst(count)
        inFlight = []
        if confirms {
            unconfirmed.append(contentsOf: delivered.map { ($0, now) })
            if unconfirmed.count > Self.maximumUnconfirmed { unconfirmed.removeFirst(unconfirmed.count - Self.maximumUnconfirmed) }
        }
        if sentSinceRefusal != nil { sentSinceRefusal! += delivered.count }
        guard refused else {
            return (delivered, nil)
        }
        sentSinceRefusal = sentSinceRefusal ?? 0
        queued.insert(contentsOf: rest, at: 0)
        isWaitingForRetry = true
        return (delivered, now + Self.retryDelay)
    }

    /// The retry timer fired: the queue may be sent again.
    mutating func retryDue() {
        isWaitingForRetry = false
    }

    /// Once the journal took everything after a refusal: how many entries it took since.
    mutating func takeRecoveredCount() -> Int? {
        guard let count = sentSinceRefusal, queued.isEmpty, inFlight.isEmpty, !isWaitingForRetry else { return nil }
        sentSinceRefusal = nil
        return count
    }

    /// When to look for sent entries next, if the confirmation timer must be armed now.
    mutating func confirmationToArm() -> Milliseconds? {
        guard !isConfirmationArmed, let oldest = unconfirmed.first else { return nil }
        isConfirmationArmed = true
        return max(oldest.sentAt + Self.confirmationDelay, (lastConfirmation ?? 0) + Self.confirmationInterval)
    }

    /// The confirmation timer fired: the entries sent long enough ago, to look for now.
    mutating func takeDueForConfirmation(now: Milliseconds) -> [PendingDispatch] {
        isConfirmationArmed = false
        lastConfirmation = now
        let due = unconfirmed.prefix { $0.sentAt <= now - Self.confirmationDelay }
        unconfirmed.removeFirst(due.count)
        return due.map(\.dispatch)
    }
}
