// SPDX-License-Identifier: Apache-2.0

/// A core dump a process of a run left, as systemd-coredump records it in the journal.
///
/// systemd-coredump (`src/coredump/coredump.c`) writes one entry per crash with `MESSAGE_ID=`
/// `SD_MESSAGE_COREDUMP` (`fc2e22bc…`, catalog "Process @COREDUMP_PID@ (@COREDUMP_COMM@) dumped core") and
/// `PRIORITY=2`. From the kernel's `core_pattern` arguments: `COREDUMP_PID`, `COREDUMP_UID`, `COREDUMP_GID`,
/// `COREDUMP_SIGNAL` (the signal number, decimal), `COREDUMP_TIMESTAMP` (the crash, in µs since the epoch: the
/// kernel's seconds with six zeros appended), `COREDUMP_RLIMIT`, `COREDUMP_HOSTNAME`. From /proc and the cgroup:
/// `COREDUMP_COMM`, `COREDUMP_EXE`, `COREDUMP_UNIT` (the system unit of the crashed process's cgroup),
/// `COREDUMP_USER_UNIT` (its unit in a user manager; `COREDUMP_UNIT` is then `user@UID.service`), `COREDUMP_SLICE`,
/// `COREDUMP_CGROUP`, `COREDUMP_CMDLINE`, …; `COREDUMP_SIGNAL_NAME` (`SIGSEGV`, added when the sender gave none);
/// `COREDUMP_FILENAME` when the core was kept on disk; `COREDUMP_FORWARDED=1` for a dump forwarded into a container.
///
/// It carries no InvocationID and is not PID 1's: a reader matches it to a run by unit and by the crash time
/// (``crashTime(_:)``) within the run, not by the entry's own time, which can come after the run ended (the dump is
/// processed after the process died). The entry is written by the `systemd-coredump@….service` instance that
/// receives the dump (so journald records `_SYSTEMD_UNIT=systemd-coredump@…`), except for dumps of PID 1 and
/// journald, which the kernel-started helper writes directly.
public struct CoreDump: Sendable, Hashable, Codable {
    /// The signal that dumped core (`COREDUMP_SIGNAL`), e.g. 11 for SIGSEGV.
    public var signal: Int32?
    /// The journal cursor of systemd-coredump's entry (`sd_journal_get_cursor(3)`), for `coredumpctl info` and the
    /// like.
    public var cursor: String?

    public init(signal: Int32? = nil, cursor: String? = nil) {
        self.signal = signal
        self.cursor = cursor
    }

    /// The dump systemd-coredump's `entry` records, with the cursor of the entry; nil when `entry` is not a
    /// core-dump entry. A missing or garbled `COREDUMP_SIGNAL` leaves ``signal`` nil (a Linux signal is 1...64).
    public init?(entry: RunEnding.Entry, cursor: String?) {
        guard entry.messageID == Self.messageID else { return nil }
        let number = entry.fields["COREDUMP_SIGNAL"].flatMap(RunRecord.decimal)
        self.init(signal: number.flatMap { (1...64).contains($0) ? Int32($0) : nil }, cursor: cursor)
    }

    /// `SD_MESSAGE_COREDUMP`, systemd-coredump's entry about a crash.
    public static let messageID = "fc2e22bc6ee647b6b90729ab34a250b1"

    /// The journal fields ``init(entry:cursor:)``, ``isCoreDump(_:of:bus:)`` and ``crashTime(_:)`` read. The cursor
    /// is no field: the reader asks sd-journal for it.
    public static let fields = [
        "MESSAGE_ID", "COREDUMP_UNIT", "COREDUMP_USER_UNIT", "COREDUMP_SIGNAL", "COREDUMP_TIMESTAMP", "_SYSTEMD_UNIT",
    ]

    /// True when `entry` is systemd-coredump's record of a crash in `unit`: `COREDUMP_UNIT` for a unit of the system
    /// manager, `COREDUMP_USER_UNIT` for one of a user manager.
    ///
    /// Any process may log an entry with these fields, so journald's trusted `_SYSTEMD_UNIT` must name a
    /// `systemd-coredump@` instance. An entry without it is taken only for a dump of journald itself: the
    /// kernel-started systemd-coredump writes that one itself, outside any unit, rather than hand it to the socket.
    public static func isCoreDump(_ entry: RunEnding.Entry, of unit: String, bus: BusKind = .system) -> Bool {
        guard entry.messageID == messageID else { return false }
        let named = entry.fields[bus == .system ? "COREDUMP_UNIT" : "COREDUMP_USER_UNIT"]
        guard let named, named == unit else { return false }
        guard let writer = entry.fields["_SYSTEMD_UNIT"] else { return unit == "systemd-journald.service" }
        return writer.hasPrefix("systemd-coredump@")
    }

    /// When the process crashed (`COREDUMP_TIMESTAMP`, second precision), in milliseconds since the epoch; nil when
    /// missing or garbled.
    public static func crashTime(_ entry: RunEnding.Entry) -> Milliseconds? {
        entry.fields["COREDUMP_TIMESTAMP"].flatMap(RunRecord.decimal).map { Milliseconds($0 / 1_000) }
    }

    /// Where the crash of a run that began at `began` and ended at `ended` (ms since the epoch) lies: from the second
    /// it began, since the crash time has whole seconds, to its end, which the crash came before (the kernel and PID 1
    /// read the same wall clock).
    public static func span(began: Milliseconds, ended: Milliseconds) -> ClosedRange<Milliseconds> {
        let start = min(began, ended)
        return (start - start % 1_000)...ended
    }

    /// True when `entry` is systemd-coredump's record of a crash in `unit` (``isCoreDump(_:of:bus:)``) that happened
    /// within `span` (ms since the epoch, ``span(began:ended:)``).
    public static func isCrash(
        _ entry: RunEnding.Entry, of unit: String, bus: BusKind = .system, within span: ClosedRange<Milliseconds>
    ) -> Bool {
        guard isCoreDump(entry, of: unit, bus: bus), let time = crashTime(entry) else { return false }
        return span.contains(time)
    }

    /// True when the kernel's `core_pattern` (`/proc/sys/kernel/core_pattern`) hands core dumps to systemd-coredump,
    /// as its `50-coredump.conf` sets it (`|/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h`): only then does
    /// a dump leave an entry in the journal worth waiting for. A plain file pattern (`core`) or another collector
    /// (apport, a custom pipe) leaves none.
    public static func isCollectedBySystemd(corePattern: String) -> Bool {
        let pattern = corePattern.drop { $0 == " " || $0 == "\t" }
        guard pattern.first == "|" else { return false }
        let program = pattern.dropFirst().drop { $0 == " " }.prefix { $0 != " " && $0 != "\n" && $0 != "\t" }
        return program.split(separator: "/").last == "systemd-coredump"
    }

    /// This dump with its unknown values taken from `other`; where both know a value, this dump's wins.
    public func merging(_ other: CoreDump?) -> CoreDump {
        CoreDump(signal: signal ?? other?.signal, cursor: cursor ?? other?.cursor)
    }
}
