// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleSystemd
import Testing

/// Varlink's framing as journald speaks it, and the synchronizer against sockets that answer, refuse, stall or are
/// missing (each a socket of the test's own: journald itself is tested in Tests/Integration/faults.sh).
struct JournalSynchronizerTests {
    /// A directory that exists: the synchronizer asks journald only when the journal has a directory on persistent
    /// storage.
    static let scratch = "/tmp"

    @Test("a journal without a directory on persistent storage: volatile, nothing asked")
    func volatileJournal() {
        let outcome = JournalSynchronizer(socketPath: "/nonexistent/socket", directories: ["/nonexistent/journal"])
            .synchronize()
        #expect(outcome == .volatile)
    }

    @Test("a call is one JSON object naming the method, with empty parameters, ended by NUL")
    func callFraming() {
        let bytes = VarlinkMessage.call("io.systemd.Journal.Synchronize")
        #expect(bytes.last == 0)
        #expect(bytes.dropLast().allSatisfy { $0 != 0 })
        #expect(String(decoding: bytes.dropLast(), as: UTF8.self)
            == #"{"method":"io.systemd.Journal.Synchronize","parameters":{}}"#)
    }

    @Test("a reply: success, an error by name, incomplete until its NUL, malformed", arguments: [
        (#"{"parameters":{}}"# + "\0", "ok"),
        (#"{}"# + "\0", "ok"),
        (#"{"parameters":{}}"# + "\0" + #"{"par"#, "ok"),
        (#"{"error":"io.systemd.Journal.NotSupportedByNamespaces","parameters":{}}"# + "\0",
            "error io.systemd.Journal.NotSupportedByNamespaces"),
        (#"{"error":"org.varlink.service.MethodNotFound","parameters":{"method":"x"}}"# + "\0",
            "error org.varlink.service.MethodNotFound"),
        (#"{"parameters":{}}"#, "incomplete"),
        ("", "incomplete"),
        (#"{"parameters":"# + "\0", "malformed"),
        ("[1]\0", "malformed"),
        (#"{"error":3}"# + "\0", "malformed"),
    ])
    func replyParsing(text: String, expected: String) {
        let outcome: String
        do {
            switch try VarlinkMessage.reply(in: Array(text.utf8)) {
            case nil: outcome = "incomplete"
            case .parameters: outcome = "ok"
            case .error(let name): outcome = "error \(name)"
            }
        } catch {
            outcome = "malformed"
        }
        #expect(outcome == expected)
    }

    /// A listening socket in a fresh directory, answering each connection with `reply` (none: never answers) from a
    /// thread of its own; the path and the listener's fd.
    final class FakeJournald: @unchecked Sendable {
        let directory: String
        let path: String
        let fd: Int32
        var received: [UInt8] = []
        private var thread: pthread_t?
        let reply: [UInt8]?

        init(reply: String?) throws {
            var template = Array("/tmp/lifecycled-varlink.XXXXXX".utf8CString)
            let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
            directory = String(cString: try #require(made))
            path = directory + "/io.systemd.journal"
            self.reply = reply.map { Array($0.utf8) }
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            #expect(bound == 0)
            #expect(listen(fd, 4) == 0)
            guard self.reply != nil else { return }
            let box = Unmanaged.passRetained(self)
            var id = pthread_t()
            pthread_create(&id, nil, { raw in
                let server = Unmanaged<FakeJournald>.fromOpaque(raw!).takeRetainedValue()
                server.serveOne()
                return nil
            }, box.toOpaque())
            thread = id
        }

        private func serveOne() {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            var buffer = [UInt8](repeating: 0, count: 256)
            while !received.contains(0) {
                let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                received += buffer[..<count]
            }
            _ = reply!.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        func finish() {
            if let thread { pthread_join(thread, nil) }
            close(fd)
            unlink(path)
            rmdir(directory)
        }
    }

    @Test("journald answers: synced, and it was asked exactly the call")
    func answered() throws {
        let server = try FakeJournald(reply: #"{"parameters":{}}"# + "\0")
        let outcome = JournalSynchronizer(socketPath: server.path, directories: [Self.scratch]).synchronize()
        server.finish()
        #expect(outcome == .synced)
        #expect(server.received == VarlinkMessage.call("io.systemd.Journal.Synchronize"))
    }

    @Test("journald answers with an error: failed, saying which")
    func errorReply() throws {
        let server = try FakeJournald(reply: #"{"error":"org.varlink.service.MethodNotFound","parameters":{}}"# + "\0")
        let outcome = JournalSynchronizer(socketPath: server.path, directories: [Self.scratch]).synchronize()
        server.finish()
        #expect(outcome == .failed("journald answered org.varlink.service.MethodNotFound"))
    }

    @Test("journald accepts but never answers: failed within the timeout, not later")
    func stalled() throws {
        let server = try FakeJournald(reply: nil)
        var outcome: JournalSynchronizer.Outcome?
        let elapsed = ContinuousClock().measure {
            outcome = JournalSynchronizer(socketPath: server.path, timeoutMilliseconds: 100, directories: [Self.scratch]).synchronize()
        }
        server.finish()
        #expect(outcome == .failed("no answer within 100 ms"))
        #expect(elapsed >= .milliseconds(90) && elapsed < .seconds(1))
    }

    @Test("no socket: journald cannot be asked (said, not failed); a socket nobody listens on: failed")
    func missingOrRefused() throws {
        let missing = JournalSynchronizer(socketPath: "/nonexistent/io.systemd.journal", directories: [Self.scratch]).synchronize()
        #expect(missing == .unaskable("/nonexistent/io.systemd.journal does not exist"))
        let server = try FakeJournald(reply: nil)
        close(server.fd)  // the socket file stays, as after journald died
        let refused = JournalSynchronizer(socketPath: server.path, directories: [Self.scratch]).synchronize()
        unlink(server.path)
        rmdir(server.directory)
        guard case .failed = refused else {
            Issue.record("expected a failure, got \(refused)")
            return
        }
    }

    @Test("the files: journal files and their directory are fsync'd; a missing directory has nothing to sync")
    func files() throws {
        var template = Array("/tmp/lifecycled-journal.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        let directory = String(cString: try #require(made))
        for name in ["system.journal", "system@0001-0002.journal", "notes.txt"] {
            let fd = open(directory + "/" + name, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            #expect(fd >= 0)
            close(fd)
        }
        let server = try FakeJournald(reply: #"{"parameters":{}}"# + "\0")
        let outcome = JournalSynchronizer(socketPath: server.path, directories: [directory + "/none", directory])
            .synchronize()
        server.finish()
        #expect(outcome == .synced)
        for name in ["system.journal", "system@0001-0002.journal", "notes.txt"] { unlink(directory + "/" + name) }
        rmdir(directory)
    }
}
