// SPDX-License-Identifier: Apache-2.0

import Foundation

import Glibc

/// Finds a running lifecycled by looking through `/proc`: no D-Bus, and nothing is executed.
///
/// Why `/proc` rather than systemd's `/run/systemd/units/invocation:lifecycled.service` link: that link exists only
/// for units of the system manager (not for `lifecycled --user`, nor for a daemon started by hand or by a test), when
/// it disappears after the unit stops is an implementation detail of systemd, and it gives no pid. `/proc/PID/comm`
/// and `/proc/PID/status` are readable by every user, cost one directory scan, and behave the same inside the
/// containers of the integration tests.
///
/// A process counts when its `comm` (the kernel's copy of the executable's name, cut at 15 bytes, which
/// `lifecycled` fits) is `lifecycled`, it is not a zombie, and it lives in the caller's PID namespace: the host sees
/// its containers' processes as well, and a container's lifecycled is not this machine's. Namespaces are compared by
/// the depth of `status`'s `NSpid:` line (one pid per nesting level), which, unlike `/proc/PID/ns/pid`, needs no
/// privileges.
///
/// Limits: an unrelated program named `lifecycled`, or a lifecycled that renamed its thread group, is misjudged.
/// When `/proc` is mounted with `hidepid=`, other users' processes are hidden and the answer is
/// ``DaemonStatus/unknown(reason:)`` rather than a wrong "not running".
struct DaemonProbe: Sendable {
    /// Where the process table is mounted; tests pass a directory laid out like it.
    var procDirectory = "/proc"
    /// The name the daemon's process has in `comm`.
    var processName = "lifecycled"

    /// Scans the process table once. The lowest matching pid wins (the daemon's main process when it is one).
    func status() -> DaemonStatus {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: procDirectory) else {
            return .unknown(reason: "cannot read \(procDirectory)")
        }
        let ownDepth = (try? contents(of: "self/status")).flatMap(Self.namespaceDepth)
        var isHidden = !entries.contains("1")  // PID 1 always exists; hidepid=invisible hides it from other users.
        var found: Int32?
        for entry in entries {
            guard let pid = Int32(entry), pid > 0 else { continue }
            let comm: String
            do {
                comm = try contents(of: "\(pid)/comm")
            } catch {
                if error.code == EACCES || error.code == EPERM { isHidden = true }
                continue  // ENOENT or ESRCH: the process ended while we looked.
            }
            guard comm == processName + "\n" || comm == processName,
                let status = try? contents(of: "\(pid)/status"),
                !Self.isZombie(status),
                ownDepth == nil || Self.namespaceDepth(status) == nil || Self.namespaceDepth(status) == ownDepth
            else { continue }
            found = min(found ?? pid, pid)
        }
        if let found { return .running(pid: found) }
        if isHidden { return .unknown(reason: "other users' processes are hidden from this user") }
        return .notRunning
    }

    /// The number of pids in the `NSpid:` line of a `status` file: 1 in the initial PID namespace, one more per
    /// nested namespace. Nil when the kernel does not report it (before Linux 4.1).
    static func namespaceDepth(_ status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("NSpid:") }) else { return nil }
        return line.dropFirst("NSpid:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).count
    }

    /// True for a zombie (`Z`) or dead (`X`) process, which has exited but was not reaped yet.
    static func isZombie(_ status: String) -> Bool {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("State:") }) else { return false }
        let state = line.dropFirst("State:".count).drop(while: { $0 == " " || $0 == "\t" }).first
        return state == "Z" || state == "X"
    }

    /// A file of the process table that could not be read, with the `errno` of the failed call.
    struct ReadFailure: Error {
        var code: Int32
    }

    /// Reads a small file of the process table. Files under `/proc` report a size of 0, so this reads until EOF
    /// instead of trusting `stat`.
    private func contents(of name: String) throws(ReadFailure) -> String {
        let fd = open(procDirectory + "/" + name, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ReadFailure(code: errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while bytes.count < 1 << 16 {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw ReadFailure(code: errno) }
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
