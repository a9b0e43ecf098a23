// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// When the metrics file is written, as bookkeeping without I/O: within a second of a change but at most once a
/// second (a busy machine dispatches hundreds a second, and each write is an fsync), and at least once a minute even
/// when nothing changed, so that the file's age (`node_textfile_mtime_seconds`) tells a dead lifecycled from an
/// idle one.
struct MetricsSchedule: Sendable, Equatable {
    static let minimumInterval: Milliseconds = 1_000
    static let refreshInterval: Milliseconds = 60_000
    /// A large file waits longer between writes: one second more per this many bytes of the last write, so that
    /// building and writing it never takes more than a small share of the time (many records, before the archive
    /// takes them).
    static let bytesPerSecond = 1 << 20

    /// What to do now.
    enum Decision: Sendable, Equatable {
        /// Write the file now, then arm the timer for the next refresh at the time given.
        case write(nextRefresh: Uptime)
        /// Arm the timer for this time (nothing to do until then).
        case arm(Uptime)
        /// The timer is already armed for the right time.
        case wait
    }

    /// When the file was last written; nil before the first write.
    private(set) var lastWrite: Uptime?
    /// The size of the last write, in bytes.
    var lastSize = 0
    /// Something the file shows changed since the last write.
    private(set) var isDirty = true
    private var armedFor: Uptime?

    /// What to do at `now`, when what the file shows `changed` and/or the timer fired.
    mutating func plan(now: Uptime, changed: Bool, timerFired: Bool) -> Decision {
        if changed { isDirty = true }
        // A timer that fired is no longer armed, even if it fired a little early: it is armed again if needed.
        if timerFired { armedFor = nil }
        return decide(now: now)
    }

    private mutating func decide(now: Uptime) -> Decision {
        guard let lastWrite else { return wrote(now: now) }
        let due = lastWrite + (isDirty ? changeInterval : Self.refreshInterval)
        if now >= due { return wrote(now: now) }
        guard armedFor != due else { return .wait }
        armedFor = due
        return .arm(due)
    }

    /// The least time between two writes of changes, for a file of the last write's size.
    private var changeInterval: Milliseconds {
        min(Self.refreshInterval, max(Self.minimumInterval, Milliseconds(lastSize / Self.bytesPerSecond) * 1_000))
    }

    private mutating func wrote(now: Uptime) -> Decision {
        lastWrite = now
        isDirty = false
        armedFor = now + Self.refreshInterval
        return .write(nextRefresh: now + Self.refreshInterval)
    }
}
