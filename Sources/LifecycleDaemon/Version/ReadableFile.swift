// SPDX-License-Identifier: Apache-2.0

import Glibc

/// An open, regular file that is read in chunks and closed when the value goes away.
///
/// Non-copyable so the descriptor has exactly one owner and `deinit` closes it on every path, errors included.
struct ReadableFile: ~Copyable {
    /// Bytes read per `read(2)`: large enough that hashing a big executable costs few system calls, small enough to
    /// never hold a whole executable in memory.
    static let chunkSize = 64 * 1024

    let path: String
    /// The identity of the very file that is read, from `fstat(2)` on the open descriptor.
    let identity: FileIdentity
    private let descriptor: CInt

    /// Opens `path` for reading (following symbolic links: executables are often links, like `/usr/bin/python3`).
    ///
    /// - Throws: ``VersionReadError`` with the errno of `open(2)`, or `EISDIR`/`EBADFD` if `path` is not a regular
    ///   file.
    init(opening path: String) throws(VersionReadError) {
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, and a strange path in a unit must
        // not stall the daemon. It changes nothing for regular files, the only kind that is read.
        var descriptor: CInt
        repeat {
            descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        } while descriptor == -1 && errno == EINTR
        guard descriptor != -1 else {
            throw VersionReadError(path: path, operation: "open", errno: errno)
        }
        // Refuse directories, devices, sockets and FIFOs before anything is read.
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let error = VersionReadError(path: path, operation: "stat", errno: errno)
            _ = close(descriptor)
            throw error
        }
        do {
            identity = try FileIdentity(regularFile: status, path: path)
        } catch {
            _ = close(descriptor)
            throw error
        }
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        // A failed close of a descriptor that was only read from loses nothing, and EINTR must not be retried on
        // Linux (the descriptor is already released), so the result is ignored.
        _ = close(descriptor)
    }

    /// Calls `body` with each chunk of the file, from the start to the end, reusing one buffer.
    ///
    /// - Throws: ``VersionReadError`` with the errno of `read(2)`; `EINTR` is retried.
    func forEachChunk(_ body: (UnsafeRawBufferPointer) -> Void) throws(VersionReadError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count == 0 { return }
            if count < 0 {
                if errno == EINTR { continue }
                throw VersionReadError(path: path, operation: "read", errno: errno)
            }
            body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// The whole file, read until the end (a `/proc` file's size says nothing). Only for small files: unit files and
    /// drop-ins, whose length must be known before their bytes are hashed, and `/proc/self/maps`.
    func readAll() throws(VersionReadError) -> [UInt8] {
        var bytes: [UInt8] = []
        try forEachChunk { bytes.append(contentsOf: $0) }
        return bytes
    }
}
