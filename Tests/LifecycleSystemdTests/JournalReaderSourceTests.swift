// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleSystemd
import Testing

/// `JournalReader(source:)` on collected journals that hold nothing to read: each must be an error that names the
/// path, not an empty answer that reads as "no dispatch happened".
struct JournalReaderSourceTests {
    /// A fresh empty directory; the caller removes it.
    private func emptyDirectory() throws -> String {
        var template = Array("/tmp/lifecycled-journal-test.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        try #require(made != nil)
        return String(cString: made!)
    }

    private func readError(_ source: JournalSource) -> SystemdError? {
        do {
            _ = try JournalReader(source: source).entries(matching: ["SYSLOG_IDENTIFIER=lifecycled"], fields: [])
            return nil
        } catch {
            return error
        }
    }

    @Test("a directory without journal files is an error naming it")
    func emptyDirectoryIsRefused() throws {
        let directory = try emptyDirectory()
        defer { rmdir(directory) }
        let error = try #require(readError(.directory(directory)))
        #expect(error.description == "Failed to open the journal \(directory): no readable journal file")
    }

    @Test("a directory that does not exist is an error naming it")
    func missingDirectoryIsRefused() throws {
        let error = try #require(readError(.directory("/nonexistent/lifecycled-remote")))
        #expect(error.description.hasPrefix("Failed to open the journal /nonexistent/lifecycled-remote: "))
    }

    @Test("a file that is not a journal file is an error naming it")
    func notAJournalFileIsRefused() throws {
        let directory = try emptyDirectory()
        let path = directory + "/notes.journal"
        defer {
            unlink(path)
            rmdir(directory)
        }
        let file = try #require(fopen(path, "w"))
        fputs("not a journal\n", file)
        fclose(file)
        let error = try #require(readError(.files([path])))
        #expect(error.description == "Failed to open the journal \(path): not a journal file")
    }
}
