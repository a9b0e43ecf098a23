// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// The third group of `lifecyclectl show`'s keys: the unit's runs per version, from lifecycled's dispatches in the
/// journal (``VersionRuns``), newest version first, three keys each:
///
/// ```
/// runs.1.25.3.count=12
/// runs.1.25.3.median_startup_seconds=1.02
/// runs.1.25.3.median_cpu_seconds=0.31
/// ```
///
/// - `count` is every run of the version the journal holds, the one going on included.
/// - `median_startup_seconds` and `median_cpu_seconds` are medians over the runs whose record knows the value, in
///   seconds to the microsecond; empty (`null` in JSON) when no run of the version knows it, never 0.
///
/// The version in the key is shortened as `lifecyclectl runs` shows it (``Humanize/version(_:)``: a hex digest to
/// its first 12 digits; two digests that would share a key keep their full form), `-` for runs without a version.
/// Control characters, spaces, `=` and `\` in it are written `\xNN`, so that the key is one word ending at the first
/// `=`.
extension ShowProperties {
    /// The keys of `versions`, in their order.
    static func runProperties(_ versions: [VersionRuns]) -> [(key: String, value: JSONValue)] {
        let short = versions.map { $0.version.map(Humanize.version) ?? "-" }
        var properties: [(key: String, value: JSONValue)] = []
        for (index, group) in versions.enumerated() {
            let isShared = short.indices.contains { $0 != index && short[$0] == short[index] }
            let prefix = "runs." + keyText(isShared ? group.version ?? "-" : short[index]) + "."
            properties.append((prefix + "count", .int(Int64(group.count))))
            properties.append((prefix + "median_startup_seconds", seconds(group.medianStartupSeconds)))
            properties.append((prefix + "median_cpu_seconds", seconds(group.medianCPUSeconds)))
        }
        return properties
    }

    /// `seconds` to the microsecond, systemd's resolution, so that a mean of two middle values prints as `0.15`,
    /// not `0.15000000000000002`.
    private static func seconds(_ seconds: Double?) -> JSONValue {
        seconds.map { .double(($0 * 1_000_000).rounded() / 1_000_000) } ?? .null
    }

    /// `text` with control characters, spaces, `=` and `\` written `\xNN`.
    static func keyText(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            if scalar.value <= 0x20 || scalar.value == 0x7F || scalar == "=" || scalar == "\\" {
                let hex = String(scalar.value, radix: 16)
                escaped += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
