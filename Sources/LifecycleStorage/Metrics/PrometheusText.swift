// SPDX-License-Identifier: Apache-2.0

/// Writes metric families in Prometheus's classic text format (0.0.4), the format node_exporter's textfile
/// collector parses: one `# HELP` and one `# TYPE` line per family, then its samples, no timestamps.
///
/// The output is stable, so that the same values always give the same bytes: families sorted by name, samples by
/// their rendered labels. Families with the same name are merged into one (a second HELP or TYPE line for a name makes
/// the collector reject the file).
public enum PrometheusText {
    /// Renders `families`; families without samples are left out (their HELP alone says nothing).
    public static func render(_ families: [MetricFamily]) -> String {
        var merged: [String: MetricFamily] = [:]
        for family in families {
            if merged[family.name] == nil {
                merged[family.name] = family
            } else {
                merged[family.name]!.samples += family.samples
            }
        }
        var out = ""
        for name in merged.keys.sorted() {
            let family = merged[name]!
            guard !family.samples.isEmpty else { continue }
            out += "# HELP \(name) \(escapeHelp(family.help))\n"
            out += "# TYPE \(name) \(family.kind.rawValue)\n"
            let lines = family.samples.map { sample in
                (name: name + sample.suffix, labels: labelText(sample.labels), value: sample.value.text)
            }
            // A histogram's samples stay in their order: each series' buckets by bound, then its sum and count.
            let ordered = family.kind == .histogram ? lines : lines.sorted { $0.labels < $1.labels }
            for line in ordered {
                out += "\(line.name)\(line.labels) \(line.value)\n"
            }
        }
        return out
    }

    /// `{a="1",b="2"}` with the labels sorted by name, or nothing when there are none.
    static func labelText(_ labels: [String: String]) -> String {
        guard !labels.isEmpty else { return "" }
        let pairs = labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\(escapeLabelValue($0.value))\"" }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    /// A label value as the text format needs it: backslash, double quote and newline escaped, nothing else (the
    /// parser rejects any other escape, so systemd's `\x2d` in a unit name must become `\\x2d`).
    public static func escapeLabelValue(_ value: String) -> String {
        var out = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// Help text escapes only backslash and newline.
    static func escapeHelp(_ help: String) -> String {
        var out = ""
        for character in help.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
