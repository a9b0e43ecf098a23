// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import LifecycleEngine

/// `--since TIME` for `lifecyclectl runs`: an RFC 3339 time with a zone (`2026-03-02T10:00:00Z`), or a time relative
/// to now as journalctl takes it (`-2h`, `30min ago`; units s, min, h, d).
struct SinceOption: ParsableArguments {
    @Option(
        name: .customLong("since"),
        help: ArgumentHelp(
            "Only runs that began at or after this: RFC 3339 (2026-03-02T10:00:00Z) or relative "
                + "(--since=-2h, \"30min ago\").",
            valueName: "time"
        )
    )
    var text: String?

    func validate() throws {
        if let text, Self.parse(text, now: 0) == nil {
            throw ValidationError(
                "Invalid --since \"\(text)\": expected an RFC 3339 time with a zone, such as 2026-03-02T10:00:00Z, "
                    + "or a relative time such as -2h or \"30min ago\"."
            )
        }
    }

    /// The instant, in milliseconds since the epoch; nil when the option was not given.
    func instant(now: Milliseconds) -> Milliseconds? {
        text.flatMap { Self.parse($0, now: now) }
    }

    static let unitMilliseconds: [String: Milliseconds] = [
        "s": 1_000, "sec": 1_000, "min": 60_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000,
    ]

    /// `text` as an instant, relative ones counted back from `now`; nil when it is neither form.
    static func parse(_ text: String, now: Milliseconds) -> Milliseconds? {
        if let absolute = TimestampParser.milliseconds(from: text) { return absolute }
        var relative = Substring(text)
        if relative.hasPrefix("-") {
            relative = relative.dropFirst()
        } else if relative.hasSuffix(" ago") {
            relative = relative.dropLast(" ago".count)
        } else {
            return nil
        }
        let digits = relative.prefix { $0.isASCII && $0.isNumber }
        guard let count = Int64(digits), let unit = unitMilliseconds[String(relative.dropFirst(digits.count))],
            count <= Int64.max / unit
        else { return nil }
        return now - count * unit
    }
}
