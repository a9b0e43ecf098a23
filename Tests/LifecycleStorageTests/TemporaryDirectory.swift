// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

import Glibc

/// A fresh directory under `$TMPDIR` for one test, removed with everything in it when the test ends.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/lifecycled-test.XXXXXX").utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CocoaError(.fileWriteUnknown)
        }
        path = String(cString: created)
    }

    deinit {
        // Tests may have made directories read-only; give them back so the cleanup cannot fail half-way. Only real
        // directories: chmod follows symlinks, and a test's symlink to /dev/null must not change /dev/null itself.
        for subpath in (try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? [] {
            var info = stat()
            let file = path + "/" + subpath
            if lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                chmod(file, 0o755)
            }
        }
        chmod(path, 0o755)
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `text` to `name` (relative to the directory), creating parent directories.
    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        try write(Array(text.utf8), to: name)
    }

    @discardableResult
    func write(_ bytes: [UInt8], to name: String) throws -> String {
        let file = path + "/" + name
        let parent = (file as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// The bytes of `name`, or nil when it does not exist.
    func read(_ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path + "/" + name).map(Array.init)
    }

    /// The content of `name` as text, or nil when it does not exist; compared in tests for readable failures.
    func text(_ name: String) -> String? {
        read(name).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The sorted names in the subdirectory `name`.
    func list(_ name: String = "") -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path + "/" + name)) ?? []).sorted()
    }
}
