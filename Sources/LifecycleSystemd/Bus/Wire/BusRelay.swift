// SPDX-License-Identifier: Apache-2.0

import Glibc

/// lifecycled's end of a bus connection it reads itself (docs/architecture.md, "The bus relay"): the socket to the
/// bus daemon, and the write end of the socket pair sd-bus reads as its input.
///
/// sd-bus writes its calls to the bus directly (its output is a duplicate of the socket). Everything the bus daemon
/// sends is read here, in large pieces, and cut into messages by a ``WireFramer``; the connection then either reads
/// a message itself or writes it to the pair for sd-bus, in the order they came.
final class BusRelay {
    /// The socket to the bus daemon, polled and read here.
    let socket: Int32
    /// What sd-bus reads: the other end is its input.
    private let pairEnd: Int32
    var framer = WireFramer()
    /// Whether the bus daemon has closed its end; everything before was framed.
    private(set) var isAtEnd = false

    /// Connects to `address` and makes the pair; returns the relay and sd-bus's two fds (input, output), which the
    /// caller hands to `sd_bus_set_fd(3)` (sd-bus closes them).
    static func connect(to address: BusSocketAddress) throws(SystemdError) -> (BusRelay, input: Int32, output: Int32) {
        let socket = try address.connect()
        var pair: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, type, 0, &pair) == 0 else {
            let code = Glibc.errno
            close(socket)
            throw SystemdError(errno: code, operation: "create the bus relay's socket pair")
        }
        let output = fcntl(socket, F_DUPFD_CLOEXEC, 3)
        guard output >= 0 else {
            let code = Glibc.errno
            close(socket)
            close(pair[0])
            close(pair[1])
            throw SystemdError(errno: code, operation: "duplicate the bus socket")
        }
        return (BusRelay(socket: socket, pairEnd: pair[1]), pair[0], output)
    }

    private init(socket: Int32, pairEnd: Int32) {
        self.socket = socket
        self.pairEnd = pairEnd
    }

    deinit {
        close(socket)
        close(pairEnd)
    }

    /// What one read from the socket gave.
    enum Received {
        /// Some bytes; whether they filled the room given (more may wait then).
        case bytes(filledRoom: Bool)
        case nothing
        case end
    }

    /// Reads what the bus daemon has sent, without waiting.
    func receive() throws(SystemdError) -> Received {
        guard !isAtEnd else { return .end }
        while true {
            var roomSize = 0
            let count = try framer.receive { room in
                roomSize = room.count
                return recv(socket, room.baseAddress, room.count, Int32(MSG_DONTWAIT))
            }
            if count > 0 { return .bytes(filledRoom: count == roomSize) }
            if count == 0 {
                isAtEnd = true
                // sd-bus sees the end too, after what it was given: it then fails the connection as it would have.
                shutdown(pairEnd, Int32(SHUT_WR))
                return .end
            }
            switch Glibc.errno {
            case EINTR: continue
            case EAGAIN: return .nothing
            case let code: throw SystemdError(errno: code, operation: "read from the bus")
            }
        }
    }

    /// Writes as much of `bytes` to sd-bus's input as fits now; returns how much.
    func write(_ bytes: UnsafeRawBufferPointer) throws(SystemdError) -> Int {
        while true {
            let count = send(pairEnd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            if count >= 0 { return count }
            switch Glibc.errno {
            case EINTR: continue
            case EAGAIN: return 0
            case let code: throw SystemdError(errno: code, operation: "pass a message to sd-bus")
            }
        }
    }
}
