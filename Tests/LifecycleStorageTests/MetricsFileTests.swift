// SPDX-License-Identifier: Apache-2.0

import LifecycleStorage
import Testing

import Glibc

/// The `.prom` file, replaced atomically next to itself.
struct MetricsFileTests {
    @Test("a write replaces the file, mode 0644, and leaves no temporary file")
    func replaces() throws {
        let directory = try TemporaryDirectory()
        let file = MetricsFile(path: directory.path + "/lifecycled.prom")
        try file.write("a 1\n")
        try file.write("a 2\n")
        #expect(directory.text("lifecycled.prom") == "a 2\n")
        #expect(directory.list() == ["lifecycled.prom"])
        var info = stat()
        #expect(stat(file.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o644)
    }

    @Test("a missing directory is an error that names it")
    func missingDirectory() throws {
        let directory = try TemporaryDirectory()
        do {
            try MetricsFile(path: directory.path + "/absent/lifecycled.prom").write("a 1\n")
            Issue.record("the write should have failed")
        } catch {
            #expect(error.description.contains("\(directory.path)/absent"))
            #expect(error.description.contains("No such file or directory"))
        }
    }

    @Test("temporary files a killed writer left beside the file are removed; other files are not")
    func leftovers() throws {
        let directory = try TemporaryDirectory()
        let file = MetricsFile(path: directory.path + "/lifecycled.prom")
        try file.write("a 1\n")
        _ = try directory.write("a 0\n", to: ".lifecycled.prom.Ab3dE9")
        _ = try directory.write("a 0\n", to: ".lifecycled.prom.zz9Q2x")
        _ = try directory.write("b 1\n", to: ".other.prom.Ab3dE9")
        _ = try directory.write("c 1\n", to: "node.prom")
        #expect(file.removeLeftovers() == 2)
        #expect(directory.list() == [".other.prom.Ab3dE9", "lifecycled.prom", "node.prom"])
    }
}
