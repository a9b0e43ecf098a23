// SPDX-License-Identifier: Apache-2.0

extension JSONWriter {
    /// Appends to `bytes` what `body` writes, without a buffer of its own: the bytes are handed to the writer and back.
    /// A dispatch's entry writes its payload so, straight into the entry's fields.
    public static func append(to bytes: inout [UInt8], _ body: (inout JSONWriter) -> Void) {
        var writer = JSONWriter(reservingCapacity: 0)
        swap(&writer.bytes, &bytes)
        body(&writer)
        swap(&writer.bytes, &bytes)
    }

    /// Writes one lifecycle data point; dates are formatted straight into the buffer.
    public mutating func field(_ field: LifecycleData.Field) {
        switch field {
        case .int(let value): integer(value)
        case .bool(let value): value ? raw("true") : raw("false")
        case .event(let event): string(event.rawValue)
        case .isoDate(let time): quotedDate(time, .iso8601)
        case .monthDayYear(let time): quotedDate(time, .monthDayYear)
        }
    }

    mutating func quotedDate(_ time: Milliseconds, _ format: LifecycleDateFormat) {
        bytes.append(UInt8(ascii: "\""))
        format.append(time, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }
}
