// SPDX-License-Identifier: Apache-2.0

import Glibc

/// Cuts the bytes read from a bus socket into what came: the bus daemon's authentication lines, then whole messages
/// (docs/architecture.md, "The bus relay"). Pure: the relay reads into the buffer's spare room with
/// ``receive(_:)``.
struct WireFramer {
    /// What came, whole.
    enum Frame: Equatable {
        /// One line of the authentication (`OK <guid>\r\n`, `REJECTED …\r\n`), with its line end.
        case authenticationLine(Range<Int>)
        /// One message.
        case message(Range<Int>)
    }

    /// The bytes; a frame's range stays valid until the next ``receive(_:)``.
    private(set) var buffer: [UInt8]
    /// The first byte not framed yet.
    private var start = 0
    /// The end of the bytes received.
    private var end = 0
    /// Whether the daemon has said `OK`: binary messages follow it (lifecycled negotiates no unix fds, so no
    /// `AGREE_UNIX_FD` line comes).
    private(set) var isAuthenticated = false

    /// The buffer's size between messages larger than it.
    static let defaultCapacity = 65_536
    /// The longest authentication line taken: the specification allows the server 16 KB.
    static let maximumLineLength = 16_384

    init(capacity: Int = defaultCapacity) {
        buffer = [UInt8](repeating: 0, count: capacity)
    }

    /// Whether bytes wait that do not make a whole frame yet.
    var hasPartialFrame: Bool { end > start }

    /// The next whole frame, or nil until more bytes come.
    mutating func next() throws(SystemdError) -> Frame? {
        guard end > start else { return nil }
        if !isAuthenticated { return try nextLine() }
        let length = try withBytes(start..<end) { bytes throws(SystemdError) in
            try WireMessage.length(ofMessageStartingWith: bytes)
        }
        guard let length, end - start >= length else { return nil }
        defer { start += length }
        return .message(start..<(start + length))
    }

    private mutating func nextLine() throws(SystemdError) -> Frame? {
        var index = start
        while index + 1 < end, !(buffer[index] == 13 && buffer[index + 1] == 10) { index += 1 }
        guard index + 1 < end else {
            guard end - start < Self.maximumLineLength else {
                throw WireReader.malformed("an authentication line of more than \(Self.maximumLineLength) bytes")
            }
            return nil
        }
        let line = start..<(index + 2)
        isAuthenticated = buffer[start...].starts(with: "OK ".utf8)
        start = line.upperBound
        return .authenticationLine(line)
    }

    /// Room for at least `minimum` more bytes, and for the whole message that has begun.
    private mutating func spareCapacity(minimum: Int = 4_096) throws(SystemdError) -> Range<Int> {
        if start > 0 {
            if end > start {
                // The bytes left may overlap where they go: memmove.
                buffer.withUnsafeMutableBytes { raw in
                    _ = memmove(raw.baseAddress!, raw.baseAddress! + start, end - start)
                }
            }
            end -= start
            start = 0
        }
        var needed = end + minimum
        if isAuthenticated, let length = try withBytes(0..<end, { bytes throws(SystemdError) in
            try WireMessage.length(ofMessageStartingWith: bytes)
        }) {
            needed = max(needed, length)
        }
        if needed > buffer.count {
            buffer.append(contentsOf: repeatElement(0, count: needed - buffer.count))
        } else if end == 0, buffer.count > 4 * Self.defaultCapacity {
            // A large message has gone: its room is given back.
            buffer = [UInt8](repeating: 0, count: Self.defaultCapacity)
        }
        return end..<buffer.count
    }

    /// Calls `body` with the bytes of `range` (a frame's, say) where they lie.
    func withBytes<Result>(
        _ range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws(SystemdError) -> Result
    ) throws(SystemdError) -> Result {
        // Array's closures rethrow untyped errors: the typed one is carried out in a Result.
        let result = buffer.withUnsafeBytes { raw in
            Swift.Result { () throws(SystemdError) in try body(UnsafeRawBufferPointer(rebasing: raw[range])) }
        }
        return try result.get()
    }

    /// Lets `body` write into the spare room (moving the bytes not framed yet to the front first, and making room
    /// for the whole message that has begun); `body` returns how many bytes it wrote, or a negative number.
    mutating func receive(_ body: (UnsafeMutableRawBufferPointer) -> Int) throws(SystemdError) -> Int {
        let room = try spareCapacity()
        let count = buffer.withUnsafeMutableBytes { raw in body(UnsafeMutableRawBufferPointer(rebasing: raw[room])) }
        precondition(count <= room.count, "received past the buffer")
        if count > 0 { end += count }
        return count
    }
}
