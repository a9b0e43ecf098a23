// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

/// A handcrafted TZif file (RFC 8536 §3): for each block, the header and the data with `timeSize`-byte times.
///
/// From version 2 on, the 32-bit block is the minimal one `zic -b slim` writes (no transitions, one type), so a
/// parser that read it instead of the 64-bit block would see UTC only.
struct TZifBlob {
    var version: UInt8 = UInt8(ascii: "2")
    var transitions: [(time: Int64, type: UInt8)] = []
    var offsets: [Int32] = [0]
    var footer: String? = ""

    var bytes: [UInt8] {
        guard version != 0 else { return block(timeSize: 4, transitions: transitions, offsets: offsets) }
        var bytes = block(timeSize: 4, transitions: [], offsets: [0])
        bytes += block(timeSize: 8, transitions: transitions, offsets: offsets)
        if let footer { bytes += Array("\n\(footer)\n".utf8) }
        return bytes
    }

    private func block(timeSize: Int, transitions: [(time: Int64, type: UInt8)], offsets: [Int32]) -> [UInt8] {
        var bytes = Array("TZif".utf8) + [version] + [UInt8](repeating: 0, count: 15)
        // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
        for count in [0, 0, 0, transitions.count, offsets.count, 4] { bytes += bigEndian(Int64(count), size: 4) }
        for transition in transitions { bytes += bigEndian(transition.time, size: timeSize) }
        bytes += transitions.map(\.type)
        for offset in offsets { bytes += bigEndian(Int64(offset), size: 4) + [0, 0] }  // isdst, abbreviation 0
        return bytes + Array("LMT\0".utf8)
    }

    private func bigEndian(_ value: Int64, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}

struct TZifParsingTests {
    /// +00:30 before 1000, +01:00 from 1000, +02:00 from 2^33 (after 2242, beyond 32 bits), +01:00 again from 2^34.
    static let sample = TZifBlob(
        transitions: [(1_000, 1), (1 << 33, 2), (1 << 34, 1)],
        offsets: [1_800, 3_600, 7_200],
        footer: "XXX-5"
    )

    @Test("transitions, the type before the first one, and the footer after the last, from the 64-bit block")
    func version2() throws {
        let rules = try TimeZoneRules(tzif: Self.sample.bytes, name: "Test/Sample")
        #expect(rules.name == "Test/Sample")
        #expect(rules.secondsFromGMT(at: -1 << 40) == 1_800)
        #expect(rules.secondsFromGMT(at: 999) == 1_800)
        #expect(rules.secondsFromGMT(at: 1_000) == 3_600)
        #expect(rules.secondsFromGMT(at: (1 << 33) - 1) == 3_600)
        #expect(rules.secondsFromGMT(at: 1 << 33) == 7_200)
        #expect(rules.secondsFromGMT(at: 1 << 34) == 3_600)
        #expect(rules.secondsFromGMT(at: (1 << 34) + 1) == 18_000)
    }

    @Test("an empty footer keeps the last type; no transitions means the footer, else type 0, everywhere")
    func footerVariants() throws {
        var blob = Self.sample
        blob.footer = ""
        #expect(try TimeZoneRules(tzif: blob.bytes, name: "x").secondsFromGMT(at: 1 << 40) == 3_600)
        let onlyFooter = TZifBlob(offsets: [0], footer: "<+0545>-5:45")
        #expect(try TimeZoneRules(tzif: onlyFooter.bytes, name: "x").secondsFromGMT(at: 0) == 20_700)
        let onlyType = TZifBlob(offsets: [-3_600], footer: "")
        #expect(try TimeZoneRules(tzif: onlyType.bytes, name: "x").secondsFromGMT(at: 1 << 40) == -3_600)
    }

    @Test("a version 3 footer with daylight time all year")
    func version3() throws {
        let blob = TZifBlob(
            version: UInt8(ascii: "3"),
            transitions: [(0, 1)],
            offsets: [-18_000, -14_400],
            footer: "EST5EDT,0/0,J365/25"
        )
        let rules = try TimeZoneRules(tzif: blob.bytes, name: "x")
        for instant in ["2026-01-01T04:59:59Z", "2026-07-01T00:00:00Z", "2090-12-31T23:00:00Z"] {
            #expect(offset(rules, instant) == -14_400)
        }
    }

    @Test("a version 1 file has 32-bit times and no footer")
    func version1() throws {
        let blob = TZifBlob(version: 0, transitions: [(-100, 1), (100, 0)], offsets: [0, 3_600], footer: nil)
        let rules = try TimeZoneRules(tzif: blob.bytes, name: "x")
        #expect(rules.secondsFromGMT(at: -101) == 0)
        #expect(rules.secondsFromGMT(at: -100) == 3_600)
        #expect(rules.secondsFromGMT(at: 99) == 3_600)
        #expect(rules.secondsFromGMT(at: 1 << 40) == 0)
    }

    @Test("every truncation of a valid file is refused")
    func truncated() {
        let bytes = Self.sample.bytes
        for length in 0..<bytes.count {
            #expect(throws: TimeZoneDataError.self, "\(length) bytes") {
                try TimeZoneRules(tzif: Array(bytes[0..<length]), name: "x")
            }
        }
    }

    @Test("malformed files are refused")
    func malformed() {
        var badMagic = Self.sample.bytes
        badMagic[0] = UInt8(ascii: "X")
        var version1 = Self.sample
        version1.version = UInt8(ascii: "1")
        var unsorted = Self.sample
        unsorted.transitions = [(2_000, 1), (1_000, 2)]
        var badIndex = Self.sample
        badIndex.transitions = [(1_000, 3)]
        var noTypes = Self.sample
        noTypes.transitions = []
        noTypes.offsets = []
        var badOffset = Self.sample
        badOffset.offsets = [1_800, 3_600, 100_000]
        var badFooter = Self.sample
        badFooter.footer = "CET-1CEST,M3.5.0"
        var noFooter = Self.sample
        noFooter.footer = nil
        for bytes in [
            badMagic, version1.bytes, unsorted.bytes, badIndex.bytes, noTypes.bytes, badOffset.bytes, badFooter.bytes,
            noFooter.bytes, Array("TZif2".utf8),
        ] {
            #expect(throws: TimeZoneDataError.self) { try TimeZoneRules(tzif: bytes, name: "x") }
        }
    }
}
