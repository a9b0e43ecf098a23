// SPDX-License-Identifier: Apache-2.0

import Glibc
import Logging

/// Logs one line per message to standard error with an `sd-daemon(3)` priority prefix (`<3>`, `<4>`, `<6>`, …):
/// under systemd, journald reads the prefix as the entry's PRIORITY; on a terminal it stays readable.
public struct StderrLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String

    public init(label: String, logLevel: Logger.Level = .info) {
        self.label = label
        self.logLevel = logLevel
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let details = merged.isEmpty ? "" : " (" + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + ")"
        var line = "<\(Self.priority(event.level))>\(event.message)\(details)\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }

    /// syslog priorities: trace and debug 7, info 6, notice 5, warning 4, error 3, critical 2.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
