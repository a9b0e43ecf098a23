// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc

/// Makes what journald has written so far durable: asks journald to sync (`io.systemd.Journal.Synchronize` on its
/// varlink socket, what `journalctl --sync` does), within a deadline, then fsyncs the journal's files on persistent
/// storage itself.
///
/// journald writes each entry into its file's shared mapping at once (readers see it at once) and makes the file
/// durable only every `SyncIntervalSec=`, after an entry at crit or above, and when asked. Synchronize first processes
/// everything queued before the call (its second half runs at a lower priority than journald's sockets), then syncs;
/// but up to systemd 255 it replies as soon as the fsync is started in journald's offlining thread (`server_sync`
/// offlines with `wait=false`), not once it is done (systemd pull request 32617 made the reply wait, in 256). An
/// fsync of the same files, from any process and any descriptor, waits for the pages journald dirtied through its
/// mapping: that is what makes an entry lifecycled found in a file durable on every version. The call still comes
/// first: it says journald is alive and answering, makes journald mark its files offline (clean after a power cut,
/// not set aside as unclean), and covers the file an entry was in when journald rotated since.
///
/// The call never waits longer than ``timeoutMilliseconds`` (non-blocking connect, `poll(2)`); the fsync waits for the
/// disk, as the state files' saves do.
public struct JournalSynchronizer: Sendable {
    /// What a synchronization came to.
    public enum Outcome: Sendable, Equatable {
        /// journald answered, and the files were fsync'd.
        case synced
        /// journald cannot be asked, by design: no varlink socket (systemd before 245, a journal without one), or
        /// not allowed to connect (the socket is root's). The files were fsync'd all the same; the reason says why.
        case unaskable(String)
        /// journald did not answer in time, refused, or the files could not be fsync'd: nothing is known durable.
        case failed(String)
        /// No journal directory on persistent storage: the journal lives in /run, and a power cut takes all of it.
        /// Nothing was asked: a sync would make nothing durable.
        case volatile
    }

    /// journald's varlink socket (systemd 245 and later).
    public static let systemSocket = "/run/systemd/journal/io.systemd.journal"
    public static let method = "io.systemd.Journal.Synchronize"
    /// Files last modified this long ago (s) are fsync'd besides the active `system.journal`: one journald archived
    /// while lifecycled looked may hold the entries found.
    static let recentlyModified = 120

    public var socketPath: String
    public var timeoutMilliseconds: Int32
    /// The directories of the journal's files on persistent storage (a volatile journal in /run has nothing a power
    /// cut would leave).
    public var directories: [String]

    public init(socketPath: String = Self.systemSocket, timeoutMilliseconds: Int32 = 150, directories: [String]) {
        self.socketPath = socketPath
        self.timeoutMilliseconds = timeoutMilliseconds
        self.directories = directories
    }

    /// The local machine's persistent journal directory, `/var/log/journal/MACHINE-ID`; none without a machine ID.
    public static func persistentDirectories(root: String = "") -> [String] {
        guard let id = try? readSmallFile(root + "/etc/machine-id"), id.count == 32, id.allSatisfy(\.isHexDigit) else {
            return []
        }
        return ["\(root)/var/log/journal/\(id)"]
    }

    /// Asks journald to sync, then fsyncs the files of ``directories``; asks nothing when none of them exists.
    public func synchronize() -> Outcome {
        guard directories.contains(where: Self.isDirectory) else { return .volatile }
        let answer = call()
        switch answer {
        case .failed, .volatile:
            return answer
        case .synced, .unaskable:
            if let failure = fsyncFiles() { return .failed(failure) }
            return answer
        }
    }

    // MARK: - The varlink call

    /// One call of ``method`` on its own connection, within the deadline.
    func call() -> Outcome {
        let deadline = Self.monotonicMilliseconds() + Int64(timeoutMilliseconds)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failed("socket: \(Self.text(errno))") }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { return .failed("socket path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
            raw[path.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if connected != 0 {
            let code = errno
            switch code {
            case EINPROGRESS, EAGAIN:
                // A full backlog (journald busy): wait for the connection like for the reply.
                if let failure = wait(fd, for: Int16(POLLOUT), until: deadline) { return .failed(failure) }
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                if error != 0 { return .failed("connect \(socketPath): \(Self.text(error))") }
            case ENOENT, ENOTDIR:
                return .unaskable("\(socketPath) does not exist")
            case EACCES, EPERM:
                return .unaskable("\(socketPath): \(Self.text(code))")
            default:
                // ECONNREFUSED: the socket is there, no journald listens (restarting).
                return .failed("connect \(socketPath): \(Self.text(code))")
            }
        }
        var message = VarlinkMessage.call(Self.method)[...]
        while !message.isEmpty {
            let written = message.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                message = message.dropFirst(written)
            } else if written < 0, errno == EAGAIN || errno == EINTR {
                if let failure = wait(fd, for: Int16(POLLOUT), until: deadline) { return .failed(failure) }
            } else {
                return .failed("send: \(Self.text(errno))")
            }
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            if let failure = wait(fd, for: Int16(POLLIN), until: deadline) { return .failed(failure) }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return .failed("journald closed the connection without a reply") }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return .failed("recv: \(Self.text(errno))")
            }
            reply += buffer[..<count]
            guard reply.count <= 65_536 else { return .failed("the reply is too long") }
            do {
                switch try VarlinkMessage.reply(in: reply) {
                case nil: continue
                case .parameters: return .synced
                case .error(let name): return .failed("journald answered \(name)")
                }
            } catch {
                return .failed(error.description)
            }
        }
    }

    /// Waits until `fd` is ready for `events`, or the deadline passes; nil when ready, else why not.
    private func wait(_ fd: Int32, for events: Int16, until deadline: Int64) -> String? {
        while true {
            let left = deadline - Self.monotonicMilliseconds()
            guard left > 0 else { return "no answer within \(timeoutMilliseconds) ms" }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let r = poll(&entry, 1, Int32(left))
            if r < 0 {
                if errno == EINTR { continue }
                return "poll: \(Self.text(errno))"
            }
            if r == 0 { continue }
            if entry.revents & events != 0 { return nil }
            return "the connection failed"
        }
    }

    // MARK: - The files

    /// fsyncs every journal file of ``directories`` that may hold a recent entry, and each directory changed as
    /// recently (a file journald created at a rotation); nil on success, else the failure. A directory that does not
    /// exist has nothing to sync.
    func fsyncFiles() -> String? {
        let now = time(nil)
        for directory in directories {
            guard let dir = opendir(directory) else {
                if errno == ENOENT { continue }
                return "open \(directory): \(Self.text(errno))"
            }
            defer { closedir(dir) }
            let dirFD = dirfd(dir)
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard name.hasSuffix(".journal") else { continue }
                let fd = openat(dirFD, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK)
                guard fd >= 0 else {
                    if errno == ENOENT { continue }  // removed by a vacuum meanwhile
                    return "open \(directory)/\(name): \(Self.text(errno))"
                }
                defer { close(fd) }
                var status = stat()
                guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { continue }
                guard name == "system.journal" || status.st_mtim.tv_sec >= now - Self.recentlyModified else { continue }
                if fsync(fd) != 0 { return "fsync \(directory)/\(name): \(Self.text(errno))" }
            }
            // The directory changes only when journald creates, archives or removes a file; an fsync of an unchanged
            // one would still cost a flush of the device's cache.
            var status = stat()
            guard fstat(dirFD, &status) == 0, status.st_mtim.tv_sec >= now - Self.recentlyModified else { continue }
            if fsync(dirFD) != 0 { return "fsync \(directory): \(Self.text(errno))" }
        }
        return nil
    }

    private static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    private static func monotonicMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
    }

    private static func text(_ code: Int32) -> String { String(cString: strerror(code)) }

    private static func readSmallFile(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemdError(errno: errno, operation: "open \(path)") }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count >= 0 else { throw SystemdError(errno: errno, operation: "read \(path)") }
        return String(decoding: buffer[..<count], as: UTF8.self).trimmingNewlines()
    }
}

extension String {
    fileprivate func trimmingNewlines() -> String {
        var text = Substring(self)
        while let last = text.last, last == "\n" || last == " " { text.removeLast() }
        return String(text)
    }
}
