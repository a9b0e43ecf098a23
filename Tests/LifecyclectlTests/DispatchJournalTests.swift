// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import lifecyclectl

import Glibc

/// Whether this process may read the local system journal, which sd-journal does not say.
struct DispatchJournalTests {
    static let machineID = "3d1219c7c4c5404aaa1f6d2a48adfda4"

    @Test("a system journal file under the machine's id, persistent or volatile, current or archived, is readable")
    func readable() throws {
        for file in [
            "var/log/journal/\(Self.machineID)/system.journal",
            "run/log/journal/\(Self.machineID)/system.journal",
            "var/log/journal/\(Self.machineID)/system@0123-4567.journal",
        ] {
            let root = try TemporaryDirectory()
            try root.write(Self.machineID + "\n", to: "etc/machine-id")
            try root.write("", to: file)
            #expect(DispatchJournal.isLocalJournalReadable(root: root.path + "/"), "\(file)")
        }
    }

    @Test("no machine id, no journal directory, another machine's or a user's journal only: nothing to read")
    func notReadable() throws {
        let root = try TemporaryDirectory()
        try root.write("", to: "var/log/journal/\(Self.machineID)/system.journal")
        #expect(!DispatchJournal.isLocalJournalReadable(root: root.path + "/"))

        let other = try TemporaryDirectory()
        try other.write(Self.machineID, to: "etc/machine-id")
        #expect(!DispatchJournal.isLocalJournalReadable(root: other.path + "/"))
        try other.write("", to: "var/log/journal/00000000000000000000000000000000/system.journal")
        try other.write("", to: "var/log/journal/\(Self.machineID)/user-1000.journal")
        #expect(!DispatchJournal.isLocalJournalReadable(root: other.path + "/"))
    }

    @Test("a system journal file this process may not read does not count", .enabled(if: getuid() != 0))
    func forbidden() throws {
        let root = try TemporaryDirectory()
        try root.write(Self.machineID, to: "etc/machine-id")
        try root.write("", to: "var/log/journal/\(Self.machineID)/system.journal")
        chmod(root.path + "/var/log/journal/\(Self.machineID)/system.journal", 0)
        #expect(!DispatchJournal.isLocalJournalReadable(root: root.path + "/"))
    }
}
