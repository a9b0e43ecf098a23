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

    /// The unescaped last element of this path if it lies directly under `prefix`, else nil.
    ///
    /// Wraps `sd_bus_path_decode(3)`.
    public func decode(prefix: String) -> String? {
        var raw: UnsafeMutablePointer<CChar>?
        let decoded = rawValue.withCString { path in prefix.withCString { sd_bus_path_decode(path, $0, &raw) } }
        guard let r = try? check(decoded, "decode \(rawValue)"), r > 0,
              let raw
        else { return nil }
        defer { free(raw) }
        return String(cString: raw)
    }
}
