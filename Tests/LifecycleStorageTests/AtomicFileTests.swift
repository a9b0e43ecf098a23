// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import LifecycleStorage

import Glibc

/// The atomic replace underneath ``StateStore/save(_:)``.
struct AtomicFileTests {
    private func withDirectory(_ body: (TemporaryDirectory, CInt) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        try body(directory, fd)
    }

    @Test("a write creates or replaces the file and leaves nothing else")
    func replaces() throws {
        try withDirectory { directory, fd in
            try AtomicFile.write(Array("one".utf8), to: "a.json", in: fd, mode: 0o644)
            try AtomicFile.write(Array("two".utf8), to: "a.json", in: fd, mode: 0o644)
            #expect(directory.text("a.json") == "two")
            #expect(directory.list() == ["a.json"])
        }
    }

    @Test("a rename that fails removes the temporary file and names the step")
    func failedRenameCleansUp() throws {
        try withDirectory { directory, fd in
            // A non-empty directory cannot be replaced by a file, so everything succeeds up to renameat(2).
            try directory.write("x", to: "a.json/keep")
            do throws(AtomicFile.Failure) {
                try AtomicFile.write(Array("new".utf8), to: "a.json", in: fd, mode: 0o644)
                Issue.record("the rename should have failed")
            } catch {
                #expect(error.step == .rename)
                #expect(error.error.errno == EISDIR)
            }
            #expect(directory.list() == ["a.json"])
            #expect(directory.list("a.json") == ["keep"])
        }
    }

    @Test(
        "temporary names are recognised only in their exact form",
        arguments: [
            (".a.service.json.Ab12Cd", "a.service.json"),
            (".x.json.000000", "x.json"),
        ]
    )
    func temporaryNames(_ name: String, _ target: String) {
        #expect(AtomicFile.temporaryTarget(of: name) == target)
    }

    @Test(
        "other names are not temporary files",
        arguments: [
            "a.service.json", ".a.service.json", ".a.service.json.Ab12C", ".a.service.json.Ab12Cd7", ".a.json.Ab-2Cd",
            "..Ab12Cd",
        ]
    )
    func notTemporaryNames(_ name: String) {
        #expect(AtomicFile.temporaryTarget(of: name) == nil)
    }

    @Test("the corrupt-file stamp is the UTC second in basic ISO 8601 form")
    func timestamp() {
        #expect(StateStore.timestamp(Date(timeIntervalSince1970: 1_795_296_600.9)) == "20261121T213000Z")
        #expect(StateStore.timestamp(Date(timeIntervalSince1970: 0)) == "19700101T000000Z")
    }
}
