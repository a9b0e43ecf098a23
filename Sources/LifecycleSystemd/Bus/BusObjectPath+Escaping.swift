// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc

extension BusObjectPath {
    /// The object path of `externalID` under `prefix`, escaped the way systemd names its unit objects: every byte
    /// outside `[A-Za-z0-9]` becomes `_xx` (`nginx.service` → `/org/freedesktop/systemd1/unit/nginx_2eservice`).
    ///
    /// Wraps `sd_bus_path_encode(3)`.
    public static func encode(prefix: String, externalID: String) throws(SystemdError) -> BusObjectPath {
        var raw: UnsafeMutablePointer<CChar>?
        try check(sd_bus_path_encode(prefix, externalID, &raw), "encode an object path for \(externalID)")
        defer { free(raw) }
        return BusObjectPath(String(cString: raw!))
    }

    /// What `sd_bus_path_decode(3)` gives for `path` under `prefix` (a valid object path, not `/`), read where the
    /// path lies: the rest after `prefix` and a `/` with every `_xx` unescaped, "" for `prefix` itself or a rest of
    /// `_`, nil for a path not under it. Every `PropertiesChanged` of every unit on the host is decoded to learn
    /// whether it is watched; `sd_bus_path_decode` cost a copy, a `malloc` and a `String` made from the result
    /// each time (docs/PERFORMANCE.md, "Per run: no copy of every unit's memory, less of each signal parsed").
    static func decode(_ path: UnsafePointer<CChar>, prefix: [UInt8]) -> String? {
        let length = strlen(path)
        return path.withMemoryRebound(to: UInt8.self, capacity: length) { start in
            let bytes = UnsafeBufferPointer(start: start, count: length)
            guard length >= prefix.count,
                  prefix.withUnsafeBufferPointer({ memcmp($0.baseAddress!, start, prefix.count) }) == 0
            else { return nil }
            if length == prefix.count { return "" }
            guard bytes[prefix.count] == UInt8(ascii: "/") else { return nil }
            let rest = UnsafeBufferPointer(rebasing: bytes[(prefix.count + 1)...])
            if rest.count == 1, rest[0] == UInt8(ascii: "_") { return "" }
            guard rest.contains(UInt8(ascii: "_")) else { return String(decoding: rest, as: UTF8.self) }
            var label: [UInt8] = []
            label.reserveCapacity(rest.count)
            var index = 0
            while index < rest.count {
                let byte = rest[index]
                // An escape that is not `_` and two hex digits is taken literally, as systemd does.
                if byte == UInt8(ascii: "_"), rest.count - index >= 3, let high = hexValue(rest[index + 1]),
                   let low = hexValue(rest[index + 2]) {
                    label.append(high << 4 | low)
                    index += 3
                } else {
                    label.append(byte)
                    index += 1
                }
            }
            return String(decoding: label, as: UTF8.self)
        }
    }

    /// The value of one hex digit, either case; nil for any other byte. Bus addresses escape with it too.
    static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The unescaped last element of this path if it lies directly under `prefix`, else nil: what
    /// `sd_bus_path_decode(3)` gives (``decode(_:prefix:)``).
    public func decode(prefix: String) -> String? {
        rawValue.withCString { Self.decode($0, prefix: Array(prefix.utf8)) }
    }
}
