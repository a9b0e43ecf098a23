// SPDX-License-Identifier: Apache-2.0

import Glibc

/// Reads a file descriptor line by line in large chunks, so that replaying millions of lines costs few system calls.
struct LineReader {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var isAtEnd = false

    init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(1 << 16)
    }

    /// The next line without its newline, or nil at the end of the input.
    mutating func nextLine() throws(ReadError) -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                defer { start = newline + 1 }
                return buffer[start..<newline]
            }
            if isAtEnd {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                return buffer[start...]
            }
            try refill()
        }
    }

    private mutating func refill() throws(ReadError) {
        buffer.removeFirst(start)
        start = 0
        let chunk = 1 << 16
        let oldCount = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: chunk))
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + oldCount, chunk) }
        let code = errno
        buffer.removeLast(chunk - max(count, 0))
        guard count >= 0 else {
            if code == EINTR { return }
            throw ReadError(reason: String(cString: strerror(code)))
        }
        if count == 0 { isAtEnd = true }
    }
}

struct ReadError: Error {
    var reason: String
}

/// Buffers output and writes it to standard output in large chunks with write(2).
///
/// (Swift 6 strict concurrency rejects the C `stdout` global; write(2) needs no shared state.)
struct StandardOutput {
    static let flushThreshold = 1 << 16

    static func write(_ bytes: [UInt8]) throws(OutputError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(1, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw OutputError(reason: String(cString: strerror(errno)))
            }
            offset += written
        }
    }
}

struct OutputError: Error, CustomStringConvertible {
    var reason: String
    var description: String { "Failed to write to standard output: \(reason)" }
}

/// Writes one line to standard error.
func printError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
