// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import LifecycleEngine

/// Core dumps from systemd-coredump's entry, with the fields `src/coredump/coredump.c` writes: the kernel's
/// `core_pattern` arguments (`COREDUMP_PID`, `COREDUMP_SIGNAL`, `COREDUMP_TIMESTAMP` as seconds with six zeros, …),
/// what it reads from /proc and the cgroup (`COREDUMP_COMM`, `COREDUMP_UNIT`, `COREDUMP_USER_UNIT`, …), and the
/// `COREDUMP_SIGNAL_NAME` it adds; journald adds the writer's `_SYSTEMD_UNIT`.
struct CoreDumpTests {
    let cursor = "s=3f1b2c;i=1a2b;b=0d1e2f;m=5f5e100;t=60a1b2c3d4e5f;x=9a8b7c6d"

    func dump(_ extra: [String: String] = [:], dropping: [String] = []) -> RunEnding.Entry {
        var fields = [
            "MESSAGE": "Process 4321 (web) of user 998 dumped core.",
            "COREDUMP_PID": "4321", "COREDUMP_UID": "998", "COREDUMP_GID": "998", "COREDUMP_SIGNAL": "11",
            "COREDUMP_TIMESTAMP": "1700000000000000", "COREDUMP_RLIMIT": "18446744073709551615",
            "COREDUMP_HOSTNAME": "host", "COREDUMP_COMM": "web", "COREDUMP_EXE": "/usr/bin/web",
            "COREDUMP_UNIT": "web.service", "COREDUMP_SLICE": "system.slice",
            "COREDUMP_CGROUP": "/system.slice/web.service", "COREDUMP_SIGNAL_NAME": "SIGSEGV",
            "_SYSTEMD_UNIT": "systemd-coredump@0-4322-0.service",
        ]
        for name in dropping { fields[name] = nil }
        fields.merge(extra) { _, new in new }
        return RunEnding.Entry(messageID: CoreDump.messageID, time: 1_700_000_001_500, fields: fields)
    }

    @Test("a segfault's entry gives its signal and cursor, its unit and its crash time")
    func segfault() {
        let entry = dump()
        #expect(CoreDump(entry: entry, cursor: cursor) == CoreDump(signal: 11, cursor: cursor))
        #expect(CoreDump.isCoreDump(entry, of: "web.service"))
        #expect(!CoreDump.isCoreDump(entry, of: "db.service"))
        #expect(CoreDump.crashTime(entry) == 1_700_000_000_000)
    }

    @Test("a run's record takes the dump, and merging keeps it")
    func intoRecord() {
        let record = RunRecord(cpuSeconds: 3).merging(RunRecord(coredump: CoreDump(entry: dump(), cursor: cursor)))
        #expect(record.coredump?.signal == 11)
        #expect(record.coredump?.cursor == cursor)
        #expect(record.cpuSeconds == 3)
    }

    @Test("an abort: SIGABRT is 6")
    func abort() {
        let entry = dump(["COREDUMP_SIGNAL": "6", "COREDUMP_SIGNAL_NAME": "SIGABRT"])
        #expect(CoreDump(entry: entry, cursor: nil)?.signal == 6)
    }

    @Test("a missing or garbled signal is unknown; the dump is still one")
    func badSignal() {
        for text in ["0", "65", "-11", "SEGV", ""] {
            let parsed = CoreDump(entry: dump(["COREDUMP_SIGNAL": text]), cursor: cursor)
            #expect(parsed == CoreDump(signal: nil, cursor: cursor), "\(text)")
        }
        #expect(CoreDump(entry: dump(dropping: ["COREDUMP_SIGNAL"]), cursor: nil) == CoreDump())
        #expect(CoreDump.crashTime(dump(["COREDUMP_TIMESTAMP": "soon"])) == nil)
    }

    @Test("another entry is no dump")
    func otherEntry() {
        let exit = RunEnding.Entry(
            messageID: RunEnding.MessageID.unitProcessExit, time: 1, fields: ["COREDUMP_UNIT": "web.service"]
        )
        #expect(CoreDump(entry: exit, cursor: cursor) == nil)
        #expect(!CoreDump.isCoreDump(exit, of: "web.service"))
    }

    @Test("a dump in a user manager's unit names it in COREDUMP_USER_UNIT")
    func userUnit() {
        let entry = dump(["COREDUMP_UNIT": "user@1000.service", "COREDUMP_USER_UNIT": "app.service"])
        #expect(CoreDump.isCoreDump(entry, of: "app.service", bus: .user))
        #expect(!CoreDump.isCoreDump(entry, of: "app.service", bus: .system))
        #expect(CoreDump.isCoreDump(entry, of: "user@1000.service", bus: .system))
    }

    @Test("an entry another unit wrote is not taken; journald's own dump, written outside any unit, is")
    func forged() {
        #expect(!CoreDump.isCoreDump(dump(["_SYSTEMD_UNIT": "evil.service"]), of: "web.service"))
        #expect(!CoreDump.isCoreDump(dump(dropping: ["_SYSTEMD_UNIT"]), of: "web.service"))
        let journald = dump(["COREDUMP_UNIT": "systemd-journald.service"], dropping: ["_SYSTEMD_UNIT"])
        #expect(CoreDump.isCoreDump(journald, of: "systemd-journald.service"))
    }

    @Test("a crash within the run's span is its dump; one before it began or after it ended is another run's")
    func span() {
        let entry = dump()  // crashed at 1_700_000_000 s
        #expect(CoreDump.isCrash(entry, of: "web.service", within: 1_700_000_000_000...1_700_000_002_000))
        #expect(CoreDump.isCrash(entry, of: "web.service", within: 1_699_999_990_000...1_700_000_000_000))
        #expect(!CoreDump.isCrash(entry, of: "web.service", within: 1_700_000_001_000...1_700_000_003_000))
        #expect(!CoreDump.isCrash(entry, of: "web.service", within: 1_699_999_000_000...1_699_999_999_999))
        #expect(!CoreDump.isCrash(entry, of: "db.service", within: 0...Milliseconds.max))
        #expect(!CoreDump.isCrash(dump(dropping: ["COREDUMP_TIMESTAMP"]), of: "web.service", within: 0...Milliseconds.max))
    }

    @Test("core_pattern: only a pipe to systemd-coredump leaves an entry to wait for")
    func corePattern() {
        let collected = [
            "|/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h\n",  // 50-coredump.conf since v248
            "|/lib/systemd/systemd-coredump %P %u %g %s %t 9223372036854775808 %h",  // Debian 11
            "|/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h %d",
            " |/usr/lib/systemd/systemd-coredump %P",
        ]
        for pattern in collected { #expect(CoreDump.isCollectedBySystemd(corePattern: pattern), "\(pattern)") }
        let elsewhere = [
            "core\n", "core.%p", "/var/crash/core.%e.%p", "", "|/usr/share/apport/apport -p%p -s%s -c%c -d%d -P%P -u%u",
            "|/usr/lib/systemd/systemd-coredump-wrapper %P", "|", "/usr/lib/systemd/systemd-coredump",
        ]
        for pattern in elsewhere { #expect(!CoreDump.isCollectedBySystemd(corePattern: pattern), "\(pattern)") }
    }

    @Test("a failure tells a core dump itself: the main process dumped (ExecMainCode 3) with its signal, or Result core-dump")
    func fromFailure() {
        #expect(CrashDetails(result: "core-dump", execMainCode: 3, execMainStatus: 11).coreDump == CoreDump(signal: 11))
        #expect(CrashDetails(result: "core-dump").coreDump == CoreDump(), "a control process's dump: no main signal")
        #expect(CrashDetails(result: "signal", execMainCode: 2, execMainStatus: 11).coreDump == nil)
        #expect(CrashDetails(result: "exit-code", execMainCode: 1, execMainStatus: 11).coreDump == nil)
        let failed = MappedTransition(
            unit: "web.service", transition: .failed(CrashDetails(result: "core-dump", execMainCode: 3, execMainStatus: 6)),
            invocationID: String(repeating: "a", count: 32), time: 1, monotonicMicroseconds: 0,
            run: RunRecord(cpuSeconds: 1, coredump: CoreDump(cursor: cursor))
        )
        #expect(failed.endedRun == RunRecord(cpuSeconds: 1, coredump: CoreDump(signal: 6, cursor: cursor)))
        var clean = failed
        clean.transition = .endedCleanly
        #expect(clean.endedRun == clean.run)
    }
}
