// SPDX-License-Identifier: Apache-2.0

import Glibc

/// A failed system call: its name and the `errno` it left.
struct SystemCallError: Error, Sendable, Equatable {
    var errno: Int32
    var call: String
}

/// Thin wrappers over the POSIX calls the storage module needs.
///
/// Each one retries `EINTR` (a signal handler must never turn into a spurious I/O error) and turns `-1` into a
/// ``SystemCallError`` carrying the `errno`, so callers can name the path in their own error type.
enum Posix {
    private static func retrying<Result: BinaryInteger>(_ call: String, _ body: () -> Result)
        throws(SystemCallError) -> Result
    {
        while true {
            let result = body()
            if result != -1 { return result }
            let error = errno
            if error != EINTR { throw SystemCallError(errno: error, call: call) }
        }
    }

    /// Wraps `openat(2)`; `O_CLOEXEC` is always added so no descriptor leaks into a child process.
    static func openFile(_ path: String, relativeTo directory: CInt = AT_FDCWD, flags: CInt, mode: mode_t = 0)
        throws(SystemCallError) -> CInt
    {
        try retrying("open") { openat(directory, path, flags | O_CLOEXEC, mode) }
    }

    /// Wraps `close(2)`. `EINTR` is not retried: on Linux the descriptor is already released.
    static func closeDescriptor(_ fd: CInt) throws(SystemCallError) {
        if close(fd) == -1, errno != EINTR { throw SystemCallError(errno: errno, call: "close") }
    }

    /// Closes a descriptor on a path that is already failing, where a second error would hide the first.
    static func closeIgnoringErrors(_ fd: CInt) {
        _ = close(fd)
    }

    /// Reads a whole file through an open descriptor. Anything larger than `limit` bytes fails with `EFBIG`, the
    /// errno for "file too large", so callers need no second error type for it.
    ///
    /// The file is read in place into an array of its size (one byte more, to meet its end in the same pass): one
    /// copy from the kernel, where chunks appended to a growing array cost several, each into fresh memory (an archive
    /// shard is megabytes, docs/PERFORMANCE.md). A file that grows meanwhile, or gives no size (`/proc`), is read on
    /// in chunks.
    static func readAll(_ fd: CInt, limit: Int) throws(SystemCallError) -> [UInt8] {
        var info = stat()
        _ = try retrying("fstat") { fstat(fd, &info) }
        let capacity = min(Int(max(info.st_size, 0)), limit) + 1
        var failure: SystemCallError?
        var isFull = false
        var bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            while count < buffer.count {
                do throws(SystemCallError) {
                    let received = try retrying("read") {
                        Glibc.read(fd, buffer.baseAddress! + count, buffer.count - count)
                    }
                    if received == 0 { return }
                    count += received
                } catch {
                    failure = error
                    return
                }
            }
            isFull = true
        }
        if let failure { throw failure }
        guard isFull else { return bytes }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= limit {
            let count = try retrying("read") {
                chunk.withUnsafeMutableBytes { buffer in Glibc.read(fd, buffer.baseAddress, buffer.count) }
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<Int(count)])
        }
        throw SystemCallError(errno: EFBIG, call: "read")
    }

    /// Writes all of `bytes`, continuing after short writes.
    static func writeAll(_ fd: CInt, _ bytes: [UInt8]) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            let written = try retrying("write") {
                bytes.withUnsafeBytes { buffer in Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset) }
            }
            offset += Int(written)
        }
    }

    /// The last byte of the open file `fd`, nil when it is empty (`fstat(2)` and `pread(2)`).
    static func lastByte(_ fd: CInt) throws(SystemCallError) -> UInt8? {
        var info = stat()
        _ = try retrying("fstat") { fstat(fd, &info) }
        guard info.st_size > 0 else { return nil }
        var byte: UInt8 = 0
        let count = try retrying("pread") { pread(fd, &byte, 1, info.st_size - 1) }
        return count == 1 ? byte : nil
    }

    /// Wraps `fstat(2)`.
    static func status(of fd: CInt) throws(SystemCallError) -> stat {
        var info = stat()
        _ = try retrying("fstat") { fstat(fd, &info) }
        return info
    }

    /// Up to `count` bytes at `offset` (`pread(2)`, continuing after short reads); fewer at the end of the file.
    static func read(_ fd: CInt, count: Int, at offset: Int) throws(SystemCallError) -> [UInt8] {
        var failure: SystemCallError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, read in
            while read < count {
                do throws(SystemCallError) {
                    let received = try retrying("pread") {
                        pread(fd, buffer.baseAddress! + read, count - read, off_t(offset + read))
                    }
                    if received == 0 { return }
                    read += received
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Writes all of `bytes` at `offset` (`pwrite(2)`, continuing after short writes).
    static func write(_ fd: CInt, _ bytes: [UInt8], at offset: Int) throws(SystemCallError) {
        var written = 0
        while written < bytes.count {
            written += try retrying("pwrite") {
                bytes.withUnsafeBytes { buffer in
                    pwrite(fd, buffer.baseAddress! + written, buffer.count - written, off_t(offset + written))
                }
            }
        }
    }

    /// Wraps `ftruncate(2)`.
    static func truncate(_ fd: CInt, to size: Int) throws(SystemCallError) {
        _ = try retrying("ftruncate") { ftruncate(fd, off_t(size)) }
    }

    /// Wraps `fsync(2)`.
    static func sync(_ fd: CInt) throws(SystemCallError) {
        _ = try retrying("fsync") { fsync(fd) }
    }

    /// Wraps `fchmod(2)`.
    static func setMode(_ fd: CInt, _ mode: mode_t) throws(SystemCallError) {
        _ = try retrying("fchmod") { fchmod(fd, mode) }
    }

    /// Wraps `renameat(2)` within one directory.
    static func renameFile(_ from: String, to: String, in directory: CInt) throws(SystemCallError) {
        _ = try retrying("rename") { renameat(directory, from, directory, to) }
    }

    /// Wraps `unlinkat(2)` for a file.
    static func unlinkFile(_ name: String, in directory: CInt) throws(SystemCallError) {
        _ = try retrying("unlink") { unlinkat(directory, name, 0) }
    }

    /// Wraps `mkdir(2)`; an existing directory is success.
    static func makeDirectory(_ path: String, mode: mode_t) throws(SystemCallError) {
        if mkdir(path, mode) == -1, errno != EEXIST { throw SystemCallError(errno: errno, call: "mkdir") }
    }

    /// Wraps `fstatat(2)`, following symbolic links; nil when the path does not exist.
    static func status(_ name: String, relativeTo directory: CInt = AT_FDCWD) throws(SystemCallError) -> stat? {
        var info = stat()
        if fstatat(directory, name, &info, 0) == -1 {
            if errno == ENOENT { return nil }
            throw SystemCallError(errno: errno, call: "stat")
        }
        return info
    }

    /// Wraps `readlink(2)`: the target of a symbolic link; fails with `EINVAL` when the path is not one.
    static func readLink(_ path: String) throws(SystemCallError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = try retrying("readlink") { readlink(path, &buffer, buffer.count - 1) }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The names in a directory (without `.` and `..`), in no particular order; nil when it does not exist.
    ///
    /// Wraps `opendir(3)` and `readdir(3)`.
    static func directoryEntries(_ path: String) throws(SystemCallError) -> [String]? {
        guard let directory = opendir(path) else {
            if errno == ENOENT { return nil }
            throw SystemCallError(errno: errno, call: "opendir")
        }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw SystemCallError(errno: errno, call: "readdir") }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
    }

    /// `"Permission denied (EACCES)"`: `strerror(3)` plus the symbolic name an operator can search for.
    static func describe(errno code: Int32) -> String {
        let message = String(cString: strerror(code))
        return errnoNames[code].map { "\(message) (\($0))" } ?? "\(message) (errno \(code))"
    }

    private static let errnoNames: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", EIO: "EIO", EBADF: "EBADF", EACCES: "EACCES", EBUSY: "EBUSY",
        EEXIST: "EEXIST", EXDEV: "EXDEV", ENOTDIR: "ENOTDIR", EISDIR: "EISDIR", EINVAL: "EINVAL", ENFILE: "ENFILE",
        EMFILE: "EMFILE", EFBIG: "EFBIG", ENOSPC: "ENOSPC", EROFS: "EROFS", ENAMETOOLONG: "ENAMETOOLONG",
        ELOOP: "ELOOP", EDQUOT: "EDQUOT", ENOMEM: "ENOMEM",
    ]
}
