// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc

/// One turn of the bus thread's loop for a connection: sd-bus's own processing, and for a relayed connection the
/// relay's (docs/architecture.md, "The bus relay").
extension BusConnection {
    /// What one turn did.
    struct Turn {
        var didWork = false
        /// Nothing is left to do until poll(2) reports the connection's fd or its deadline passes.
        var isIdle = false
    }

    /// Dispatches up to `limit` messages. Throws when the connection is gone.
    func process(limit: Int) throws(SystemdError) -> Turn {
        guard let relay else { return try processBySDBus(limit: limit) }
        var turn = Turn()
        if isSDBusDue {
            isSDBusDue = false
            turn.didWork = try drainSDBus()
        }
        var framed = 0
        // Whether the socket may hold more than was read: a read that did not fill the room took all there was, and
        // poll(2) says when more comes, so a turn costs no read that fails on an empty socket.
        var mayHoldMore = true
        while framed < limit, isOpen {
            if let frame = try relay.framer.next() {
                framed += 1
                turn.didWork = true
                try take(frame, from: relay)
                continue
            }
            guard mayHoldMore else {
                turn.isIdle = true
                return turn
            }
            switch try relay.receive() {
            case .bytes(let filledRoom):
                mayHoldMore = filledRoom
            case .nothing:
                turn.isIdle = true
                return turn
            case .end:
                // sd-bus was handed the end after everything before it: it fails the connection (and its pending
                // calls) as it would have; the error below is for a bus that somehow did not.
                _ = try drainSDBus()
                throw SystemdError(
                    errno: ECONNRESET, operation: "read from the \(address)", message: "The bus closed the connection"
                )
            }
        }
        turn.isIdle = !isOpen
        return turn
    }

    /// The fd to poll and the events to wait for.
    func pollRequest() throws(SystemdError) -> pollfd? {
        guard let bus else { return nil }
        // Wraps sd_bus_get_events(3): POLLOUT while writes are queued, which a plain read source on the fd would miss.
        let events = try check(sd_bus_get_events(bus), "get the poll events of the \(address)")
        if let relay {
            // sd-bus's POLLIN is for its input, which the relay feeds; the relay reads the socket, sd-bus writes it.
            return pollfd(fd: relay.socket, events: Int16(POLLIN) | Int16(truncatingIfNeeded: events) & Int16(POLLOUT),
                          revents: 0)
        }
        // Wraps sd_bus_get_fd(3), which refuses a relayed connection's two fds.
        let fd = try check(sd_bus_get_fd(bus), "get the fd of the \(address)")
        return pollfd(fd: fd, events: Int16(truncatingIfNeeded: events), revents: 0)
    }

    private func processBySDBus(limit: Int) throws(SystemdError) -> Turn {
        var turn = Turn()
        for _ in 0..<limit {
            guard let bus else { break }
            // Wraps sd_bus_process(3): > 0 a message was handled, 0 nothing to do, < 0 the connection is gone.
            guard try check(sd_bus_process(bus, nil), "process messages on the \(address)") > 0 else {
                turn.isIdle = true
                return turn
            }
            turn.didWork = true
        }
        return turn
    }

    /// Lets sd-bus process until it has nothing to do: what the relay wrote to its input, its queued writes, its
    /// calls' timeouts. Returns whether it did anything.
    private func drainSDBus() throws(SystemdError) -> Bool {
        var didWork = false
        // A callback may close the connection: the bus is looked up again each time.
        while let bus {
            guard try check(sd_bus_process(bus, nil), "process messages on the \(address)") > 0 else { break }
            didWork = true
        }
        return didWork
    }

    /// A frame the relay cut: read by ``messageFilter``, or written to sd-bus's input and processed there before the
    /// next frame is looked at, so that sd-bus's replies and lifecycled's signals keep their order.
    private func take(_ frame: WireFramer.Frame, from relay: BusRelay) throws(SystemdError) {
        switch frame {
        case .authenticationLine(let range):
            try pass(range, from: relay)
        case .message(let range):
            let isTaken = try relay.framer.withBytes(range) { bytes throws(SystemdError) -> Bool in
                messageFilter?(try WireMessage(bytes)) ?? false
            }
            if !isTaken { try pass(range, from: relay) }
        }
    }

    /// Writes `range` of the relay's bytes to sd-bus's input, in pieces when its buffer is full, sd-bus processing
    /// in between.
    private func pass(_ range: Range<Int>, from relay: BusRelay) throws(SystemdError) {
        var next = range.lowerBound
        var idleRounds = 0
        while next < range.upperBound, isOpen {
            let written = try relay.framer.withBytes(next..<range.upperBound) { bytes throws(SystemdError) in
                try relay.write(bytes)
            }
            next += written
            let didWork = try drainSDBus()
            // sd-bus reads its input whenever it processes, so a full pair empties; one that does not is a bug.
            idleRounds = written == 0 && !didWork ? idleRounds + 1 : 0
            guard idleRounds < 100 else {
                throw SystemdError(errno: EIO, operation: "pass a message to sd-bus", message: "sd-bus reads nothing")
            }
        }
    }
}
