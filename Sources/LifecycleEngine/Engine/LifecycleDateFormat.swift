// SPDX-License-Identifier: Apache-2.0

/// The reference module's two date formats, both in UTC.
public enum LifecycleDateFormat {
    /// `yyyy-MM-dd'T'HH:mm:ss'Z'`: UTC, no milliseconds (floored), literal `Z`.
    case iso8601
    /// `MM/dd/yyyy` in UTC (not local time), used by `lifecycle_firstlaunchdate_MMDDYYYY`.
    case monthDayYear
    /// `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`: the dispatch's own time, which keeps milliseconds.
    case iso8601Milliseconds

    /// Appends `time` in this format to `bytes`.
    public func append(_ time: Milliseconds, to bytes: inout [UInt8]) {
        let date = CivilDate(secondsSince1970: floorDivide(time, 1_000))
        switch self {
        case .iso8601, .iso8601Milliseconds:
            appendDigits(date.year, 4, &bytes)
            bytes.append(UInt8(ascii: "-"))
            appendDigits(date.month, 2, &bytes)
            bytes.append(UInt8(ascii: "-"))
            appendDigits(date.day, 2, &bytes)
            bytes.append(UInt8(ascii: "T"))
            appendDigits(date.hour, 2, &bytes)
            bytes.append(UInt8(ascii: ":"))
            appendDigits(date.minute, 2, &bytes)
            bytes.append(UInt8(ascii: ":"))
            appendDigits(date.second, 2, &bytes)
            if self == .iso8601Milliseconds {
                bytes.append(UInt8(ascii: "."))
                appendDigits(time - floorDivide(time, 1_000) * 1_000, 3, &bytes)
            }
            bytes.append(UInt8(ascii: "Z"))
        case .monthDayYear:
            appendDigits(date.month, 2, &bytes)
            bytes.append(UInt8(ascii: "/"))
            appendDigits(date.day, 2, &bytes)
            bytes.append(UInt8(ascii: "/"))
            appendDigits(date.year, 4, &bytes)
        }
    }

    /// `time` in this format.
    public func string(_ time: Milliseconds) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(time, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Zero-padded decimal digits; a year outside 0...9999 keeps its sign and all its digits.
private func appendDigits(_ value: Int64, _ width: Int, _ bytes: inout [UInt8]) {
    // Fast path for every field of a date: a non-negative number that fits its width of 2 to 4 digits.
    let limit: Int64 = width == 2 ? 100 : width == 3 ? 1_000 : 10_000
    if value >= 0, value < limit, width <= 4 {
        var divisor = limit / 10
        while divisor > 0 {
            bytes.append(UInt8(truncatingIfNeeded: 0x30 + value / divisor % 10))
            divisor /= 10
        }
        return
    }
    let digits = String(value.magnitude)
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    for _ in digits.utf8.count..<max(width, digits.utf8.count) { bytes.append(UInt8(ascii: "0")) }
    bytes.append(contentsOf: digits.utf8)
}
