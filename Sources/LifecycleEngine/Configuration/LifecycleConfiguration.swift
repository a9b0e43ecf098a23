// SPDX-License-Identifier: Apache-2.0

/// Everything `/etc/lifecycled/lifecycled.json` configures, as a plain value.
///
/// Keys of the file, with their types and defaults (`docs/configuration.md` is the full reference):
/// - `autotracking_enabled` (Bool, true), `session_timeout` (Int, minutes, 1440; <= -1 is infinite),
///   `tracked_lifecycle_events` (array of "launch", "wake", "sleep"; all three), `data_target`
///   ("lifecycleEventsOnly" | "allEvents"; "lifecycleEventsOnly"): the reference settings, in ``defaults``.
/// - `version_source` ("executable" | "unit_file" | "environment:NAME" | "none"; "executable"):
///   ``defaultVersionSource``.
/// - `watch` (array of patterns or rule objects; empty): ``watch``, the units lifecycled tracks, each rule able to
///   override the five settings above.
/// - `state_directory` (absolute path; "/var/lib/lifecycled"), `bus` ("system" | "user"; "system"), `time_zone`
///   (IANA name; nil = the machine's zone), `log_level` (trace … critical; info).
/// - `crash_loop_crashes` (Int, 3), `crash_loop_minutes` (Int, 10): ``crashLoop``, read by `lifecyclectl status`.
/// - `history_from_journal` (Bool, true): ``historyFromJournal``.
/// - `metrics_file` (absolute path ending in `.prom`; nil = no metrics): ``metricsFile``, for node_exporter.
/// - `archive_after_minutes` (Int, 60; <= -1 never): ``archiveAfterMinutes``.
/// - `archive_retention_days` (Int, 90; <= -1 forever): ``archiveRetentionDays``.
///
/// The value is pure: it never reads files, the clock or the machine's time zone. Loading and validating a file is
/// the job of `LifecycleStorage.ConfigLoader`.
public struct LifecycleConfiguration: Sendable, Equatable {
    /// The state directory when the configuration names none.
    public static let defaultStateDirectory = "/var/lib/lifecycled"

    /// The reference settings for every watched unit that its rule does not override.
    public var defaults: LifecycleSettings
    /// The version source for every watched unit that its rule does not override.
    public var defaultVersionSource: VersionSource
    /// The watched units, in file order; the first rule whose pattern matches a unit is that unit's rule.
    public var watch: [WatchRule]
    /// Where the per-unit state files live (in its `units/` subdirectory).
    public var stateDirectory: String
    /// The bus whose systemd manager is watched.
    public var bus: BusKind
    /// The IANA time zone for the local-calendar data points; nil means the machine's zone, which the daemon reads.
    public var timeZone: String?
    /// The least severe message that is logged.
    public var logLevel: LogLevel
    /// How many failures in how many minutes `lifecyclectl status` shows as crash-looping.
    public var crashLoop: CrashLoopRule
    /// On lifecycled's first start on a machine, whether the watched units' past runs are rebuilt from PID 1's
    /// journal, as far back as it goes, so that their counters are right on day one.
    public var historyFromJournal: Bool
    /// The Prometheus text file lifecycled keeps up to date for node_exporter's textfile collector; nil for none.
    public var metricsFile: String?
    /// How long after systemd unloaded a unit its record stays in memory, in the metrics and in `lifecyclectl status`
    /// before it moves to the archive (from where it comes back if the unit runs again); negative keeps every record.
    public var archiveAfterMinutes: Int

    /// The default of ``archiveAfterMinutes``: an hour of transient units (`run-*`, socket-activated `foo@N`) is a
    /// few thousand records at most, however long the host runs.
    public static let defaultArchiveAfterMinutes = 60
    /// How many days the archive keeps the record of a unit after its last launch, wake, sleep or failure, before
    /// compacting the archive drops it; negative keeps every record.
    public var archiveRetentionDays: Int

    /// The default of ``archiveRetentionDays``: a season, so a service removed and installed again within it goes on
    /// counting, while names that never repeat leave the archive.
    public static let defaultArchiveRetentionDays = 90

    /// Creates a configuration; every argument left out takes its documented default.
    public init(
        defaults: LifecycleSettings = LifecycleSettings(),
        defaultVersionSource: VersionSource = .executable,
        watch: [WatchRule] = [],
        stateDirectory: String = LifecycleConfiguration.defaultStateDirectory,
        bus: BusKind = .system,
        timeZone: String? = nil,
        logLevel: LogLevel = .info,
        crashLoop: CrashLoopRule = CrashLoopRule(),
        historyFromJournal: Bool = true,
        metricsFile: String? = nil,
        archiveAfterMinutes: Int = LifecycleConfiguration.defaultArchiveAfterMinutes,
        archiveRetentionDays: Int = LifecycleConfiguration.defaultArchiveRetentionDays
    ) {
        self.defaults = defaults
        self.defaultVersionSource = defaultVersionSource
        self.watch = watch
        self.stateDirectory = stateDirectory
        self.bus = bus
        self.timeZone = timeZone
        self.logLevel = logLevel
        self.crashLoop = crashLoop
        self.historyFromJournal = historyFromJournal
        self.metricsFile = metricsFile
        self.archiveAfterMinutes = archiveAfterMinutes
        self.archiveRetentionDays = archiveRetentionDays
    }

    /// The rule that governs `unit`: the first rule, in file order, whose pattern matches the unit's name.
    ///
    /// First match wins (like udev rules and `.network` files), so put specific patterns before broad ones.
    /// - Parameter unit: a unit name such as `nginx.service`.
    /// - Returns: the rule, or nil when the unit is not watched.
    public func rule(for unit: String) -> WatchRule? {
        watch.first { $0.pattern.matches(unit) }
    }

    /// True when some pattern of ``watch`` matches `unit`. Asked several times per run: it matches the patterns
    /// without copying the matching rule out, as ``rule(for:)`` does.
    public func isWatched(_ unit: String) -> Bool {
        watch.contains { $0.pattern.matches(unit) }
    }

    /// The reference settings for `unit`: ``defaults`` with the matching rule's overrides applied.
    ///
    /// An unwatched unit gets the defaults, so manual events for it follow the configuration-wide settings.
    public func settings(for unit: String) -> LifecycleSettings {
        rule(for: unit)?.settings(overriding: defaults) ?? defaults
    }

    /// Where the version of `unit` comes from: the matching rule's override, else ``defaultVersionSource``.
    public func versionSource(for unit: String) -> VersionSource {
        rule(for: unit)?.versionSource ?? defaultVersionSource
    }

    /// The watch patterns as written, in file order, e.g. for systemd's `ListUnitsByPatterns`.
    public var patterns: [String] {
        watch.map(\.pattern.text)
    }
}
