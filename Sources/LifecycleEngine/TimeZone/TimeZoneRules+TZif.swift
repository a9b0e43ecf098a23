// SPDX-License-Identifier: Apache-2.0

extension TimeZoneRules {
    /// Parses a TZif file (RFC 8536, versions 1 to 3, and version 4 of RFC 9636), such as
    /// `/usr/share/zoneinfo/Europe/Berlin`.
    ///
    /// Version 2 and later files hold a 32-bit data block for old readers and then a 64-bit one: only the 64-bit
    /// block and the footer (a POSIX TZ rule for instants after the last transition) are read. Leap-second records
    /// and the standard/UT indicators are skipped: lifecycled counts POSIX time, and the indicators only matter to
    /// tools that rebuild rules from the file.
    ///
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - name: the zone's name, e.g. `Europe/Berlin`.
    /// - Throws: ``TimeZoneDataError`` when the bytes are not a well-formed TZif file.
    public init(tzif bytes: [UInt8], name: String) throws(TimeZoneDataError) {
        var reader = TZifReader(bytes: bytes)
        let first = try reader.header()
        let block: TZifDataBlock
        var rule: PosixTimeZone?
        if first.version == 0 {
            block = try reader.dataBlock(first, timeSize: 4)
        } else {
            // Writers may leave the 32-bit block nearly empty (zic -b slim): skip it unread.
            try reader.skipDataBlock(first, timeSize: 4)
            block = try reader.dataBlock(try reader.header(), timeSize: 8)
            rule = try reader.footer()
        }
        self.init(
            name: name,
            transitions: block.transitions,
            offsets: block.typeIndices.map { block.offsets[Int($0)] },
            initialOffset: block.offsets[0],
            rule: rule
        )
    }
}

/// The parts of one TZif header that say how long its data block is.
private struct TZifHeader {
    var version: UInt8
    var isUTCount: Int
    var isStandardCount: Int
    var leapCount: Int
    var transitionCount: Int
    var typeCount: Int
    var characterCount: Int
}

/// What lifecycled needs from a data block: when the offset changes, and to what.
private struct TZifDataBlock {
    var transitions: [Int64]
    var typeIndices: [UInt8]
    var offsets: [Int32]
}

/// A bounds-checked cursor over the file, reading big-endian integers as RFC 8536 §2 lays them out.
private struct TZifReader {
    let bytes: [UInt8]
    var position = 0

    mutating func header() throws(TimeZoneDataError) -> TZifHeader {
        guard try take(4).elementsEqual("TZif".utf8) else { throw TimeZoneDataError("not a TZif file") }
        let version = try take(1).first!
        guard version == 0 || version >= UInt8(ascii: "2") else {
            throw TimeZoneDataError("unknown TZif version \(version)")
        }
        position += 15  // reserved
        var counts: [Int] = []
        for _ in 0..<6 { counts.append(Int(try integer(size: 4, signed: false))) }
        return TZifHeader(
            version: version,
            isUTCount: counts[0],
            isStandardCount: counts[1],
            leapCount: counts[2],
            transitionCount: counts[3],
            typeCount: counts[4],
            characterCount: counts[5]
        )
    }

    /// Reads a data block whose transition and leap-second times are `timeSize` bytes wide.
    mutating func dataBlock(_ header: TZifHeader, timeSize: Int) throws(TimeZoneDataError) -> TZifDataBlock {
        guard header.typeCount > 0, header.characterCount > 0,
            header.isUTCount == 0 || header.isUTCount == header.typeCount,
            header.isStandardCount == 0 || header.isStandardCount == header.typeCount
        else { throw TimeZoneDataError("inconsistent counts in the TZif header") }
        var transitions: [Int64] = []
        transitions.reserveCapacity(header.transitionCount)
        for _ in 0..<header.transitionCount {
            let time = try integer(size: timeSize, signed: true)
            guard transitions.last.map({ $0 < time }) ?? true else {
                throw TimeZoneDataError("transition times are not in ascending order")
            }
            transitions.append(time)
        }
        let typeIndices = Array(try take(header.transitionCount))
        guard typeIndices.allSatisfy({ Int($0) < header.typeCount }) else {
            throw TimeZoneDataError("a transition names a local time type that does not exist")
        }
        var offsets: [Int32] = []
        for _ in 0..<header.typeCount {
            let offset = try integer(size: 4, signed: true)
            // RFC 8536 §3.2: within (-25 h, +26 h); anything else is a damaged file.
            guard (-89_999...93_599).contains(offset) else {
                throw TimeZoneDataError("a UTC offset of \(offset) seconds is out of range")
            }
            offsets.append(Int32(offset))
            let flags = try take(2)  // isdst, and the index of the abbreviation
            guard flags[flags.startIndex] <= 1, Int(flags[flags.startIndex + 1]) < header.characterCount else {
                throw TimeZoneDataError("a local time type is malformed")
            }
        }
        _ = try take(header.characterCount + header.leapCount * (timeSize + 4))
        _ = try take(header.isStandardCount + header.isUTCount)
        return TZifDataBlock(transitions: transitions, typeIndices: typeIndices, offsets: offsets)
    }

    mutating func skipDataBlock(_ header: TZifHeader, timeSize: Int) throws(TimeZoneDataError) {
        _ = try take(
            header.transitionCount * (timeSize + 1) + header.typeCount * 6 + header.characterCount
                + header.leapCount * (timeSize + 4) + header.isStandardCount + header.isUTCount
        )
    }

    /// The footer of a version 2+ file: a POSIX TZ rule between two newlines, nil when it is empty.
    mutating func footer() throws(TimeZoneDataError) -> PosixTimeZone? {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\n"),
            let end = bytes[(position + 1)...].firstIndex(of: UInt8(ascii: "\n"))
        else { throw TimeZoneDataError("the TZif footer is missing or not terminated") }
        let text = bytes[(position + 1)..<end]
        position = end + 1
        guard !text.isEmpty else { return nil }
        return try PosixTimeZone(parsing: String(decoding: text, as: UTF8.self))
    }

    private mutating func take(_ count: Int) throws(TimeZoneDataError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= bytes.count - position else { throw TimeZoneDataError("the TZif file is truncated") }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    private mutating func integer(size: Int, signed: Bool) throws(TimeZoneDataError) -> Int64 {
        var value: UInt64 = 0
        for byte in try take(size) { value = value << 8 | UInt64(byte) }
        guard signed, size < 8 else { return Int64(bitPattern: value) }
        // Sign-extend a 32-bit value.
        let shift = UInt64(64 - size * 8)
        return Int64(bitPattern: value << shift) >> Int64(shift)
    }
}
