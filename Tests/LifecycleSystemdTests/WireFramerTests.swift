// SPDX-License-Identifier: Apache-2.0

import Glibc
@testable import LifecycleSystemd
import Testing

/// Cutting what the bus daemon sends into its authentication line and whole messages, whatever pieces it comes in.
struct WireFramerTests {
    static let okLine = Array("OK 0123456789abcdef0123456789abcdef\r\n".utf8)

    static func message(serial: UInt32, payload: Int) -> [UInt8] {
        WireWriter.message(
            serial: serial, path: "/org/freedesktop/systemd1/unit/u\(serial)",
            interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", signature: "s"
        ) { $0.string(String(repeating: "x", count: payload)) }
    }

    /// Feeds `stream` in pieces of random sizes and returns every frame's bytes, in order.
    static func frames(of stream: [UInt8], seed: UInt64, largest: Int) throws -> [[UInt8]] {
        var random = SeededRandom(seed: seed)
        var framer = WireFramer(capacity: 1_024)
        var position = 0
        var frames: [[UInt8]] = []
        while position < stream.count || framer.hasPartialFrame {
            while let frame = try framer.next() {
                switch frame {
                case .authenticationLine(let range), .message(let range):
                    frames.append(try framer.withBytes(range) { Array($0) })
                }
            }
            guard position < stream.count else { break }
            let count = try framer.receive { room in
                let count = min(room.count, stream.count - position, Int.random(in: 1...largest, using: &random))
                room.copyBytes(from: stream[position..<(position + count)])
                return count
            }
            position += count
        }
        return frames
    }

    @Test("cuts the line and the messages whatever pieces they come in, a message larger than the buffer too",
          arguments: 1...12)
    func pieces(seed: UInt64) throws {
        let messages = [
            Self.message(serial: 1, payload: 10), Self.message(serial: 2, payload: 300_000),
            Self.message(serial: 3, payload: 0), Self.message(serial: 4, payload: 5_000),
        ]
        let stream = Self.okLine + messages.joined()
        let largest = seed % 2 == 0 ? 70_000 : 37
        let frames = try Self.frames(of: stream, seed: seed, largest: largest)
        #expect(frames == [Self.okLine] + messages)
    }

    @Test("until the bus daemon says OK, every line is passed on as a line: a refusal reaches sd-bus as it came")
    func refusal() throws {
        let stream = Array("REJECTED EXTERNAL\r\nERROR\r\n".utf8)
        let frames = try Self.frames(of: stream, seed: 3, largest: 5)
        #expect(frames == [Array("REJECTED EXTERNAL\r\n".utf8), Array("ERROR\r\n".utf8)])
    }

    @Test("a line that never ends, or a message of a wrong byte order, is an error")
    func broken() throws {
        var framer = WireFramer()
        let line = [UInt8](repeating: UInt8(ascii: "A"), count: WireFramer.maximumLineLength)
        _ = try framer.receive { room in room.copyBytes(from: line); return line.count }
        #expect(throws: SystemdError.self) { _ = try framer.next() }

        var binary = WireFramer()
        let stream = Self.okLine + [UInt8](repeating: UInt8(ascii: "x"), count: 16)
        _ = try binary.receive { room in room.copyBytes(from: stream); return stream.count }
        #expect(try binary.next() == .authenticationLine(0..<Self.okLine.count))
        #expect(throws: SystemdError.self) { _ = try binary.next() }
    }
}

/// A small deterministic generator (SplitMix64), so a failing seed can be run again.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

struct BusSocketAddressTests {
    @Test("takes the first unix socket of a D-Bus address, unescaped", arguments: [
        ("unix:path=/run/dbus/system_bus_socket", "/run/dbus/system_bus_socket", false),
        ("unix:path=/tmp/a%2cb%20c,guid=0123", "/tmp/a,b c", false),
        ("unix:abstract=/tmp/dbus-XYZ,guid=0123", "/tmp/dbus-XYZ", true),
        ("tcp:host=localhost,port=1;unix:guid=1,path=/run/bus", "/run/bus", false),
    ])
    func parses(address: String, name: String, isAbstract: Bool) {
        #expect(BusSocketAddress(address) == BusSocketAddress(name: Array(name.utf8), isAbstract: isAbstract))
    }

    @Test("an address without a usable unix socket names none", arguments: [
        "tcp:host=localhost,port=1", "unix:tmpdir=/tmp", "unix:path=/tmp/%zz", "unix:path=", "",
    ])
    func refuses(address: String) {
        #expect(BusSocketAddress(address) == nil)
    }
}
