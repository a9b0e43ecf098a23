// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

import Glibc

/// One JSON state file per unit: `<directory>/units/<unit>.json`, or `<prefix>~<hash>.json` for a name too long for
/// that (see `UnitFileName`); a file's unit is the one its content names, which must be the unit of its file name.
///
/// - Files are pretty-printed with sorted keys, so the same record always gives the same bytes.
/// - ``save(_:)`` replaces a file atomically and durably (see `AtomicFile`); a reader never sees half a file.
/// - A file that cannot be parsed, or holds another unit than its name's, is renamed to
///   `<file name>.corrupt-<UTC time>` and reported as a
///   ``StateStoreWarning``; the daemon rebuilds the unit from its dispatches in the journal, and nothing else is touched.
/// - A file whose `schema_version` is newer than this build's is refused with
///   ``StateStoreError/unsupportedVersion(path:key:found:supported:)`` by both loading and saving, so a downgrade
///   never destroys newer data.
/// - Loading deletes temporary files left by an interrupted save.
/// - Unit names are validated before they become file names, so no name can reach outside the directory.
///
/// Threading: the value is immutable and `Sendable`, but a directory must have a single writer (the daemon), since
/// loading deletes temporary files that a concurrent save may be about to rename. Readers such as `lifecyclectl`
/// open the store read-only: then nothing is deleted, renamed or written.
public struct StateStore: Sendable {
    /// The default state directory, `/var/lib/lifecycled`, which the unit file's `StateDirectory=lifecycled` creates.
    public static let defaultDirectory = LifecycleConfiguration.defaultStateDirectory
    /// State files are made readable by everyone (like systemd's own state files) so that an unprivileged
    /// `lifecyclectl status` works; they hold counters, nothing secret.
    static let fileMode: mode_t = 0o644
    /// State files larger than this are treated as corrupt. A record is about a kilobyte, and holds at most 16
    /// dispatches the journal has not shown (about 3 KB each, docs/journal.md, "A journal that stores nothing"); but
    /// a file written before that bound (a journald storing nothing below notice, 300 runs: 1.9 MB) must still load
    /// with its counters, rather than be set aside and rebuilt from a journal that holds none of them.
    static let maximumFileSize = 64 << 20

    /// The state directory; the files are in its `units` subdirectory.
    public let directory: String
    /// True when the store must not change anything on disk.
    public let isReadOnly: Bool
    private let clock: @Sendable () -> Date

    /// Opens the store of `directory`. Nothing is read or created until it is used.
    ///
    /// - Parameters:
    ///   - directory: the state directory, e.g. `/var/lib/lifecycled`.
    ///   - readOnly: true for readers that must leave the files alone (corrupt files stay in place, saves fail).
    ///   - clock: the wall clock, read only to name moved-aside files.
    public init(
        directory: String = StateStore.defaultDirectory,
        readOnly: Bool = false,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.directory = directory
        self.isReadOnly = readOnly
        self.clock = clock
    }

    /// The directory that holds the state files.
    public var unitsDirectory: String { directory + "/units" }

    /// Checks that `unit` can name a state file.
    ///
    /// - Throws: ``StateStoreError/invalidUnitName(_:reason:)`` for an empty name, `.`, `..`, a name with `/`, a
    ///   leading `.` or a control character, or a name longer than systemd's 255 bytes.
    public static func validateUnitName(_ unit: String) throws(StateStoreError) {
        if let reason = UnitFileName.invalidityReason(unit) { throw .invalidUnitName(unit, reason: reason) }
    }

    /// The path of the state file of `unit`.
    ///
    /// - Throws: ``StateStoreError/invalidUnitName(_:reason:)``.
    public func path(forUnit unit: String) throws(StateStoreError) -> String {
        try Self.validateUnitName(unit)
        return unitsDirectory + "/" + UnitFileName.stateFile(of: unit)
    }

    /// Writes `record` to its unit's file, atomically and durably, creating the directories when needed.
    ///
    /// - Throws: ``StateStoreError/unsupportedVersion(path:key:found:supported:)`` when the existing file comes from
    ///   a newer lifecycled (it is left untouched), ``StateStoreError/io(path:operation:errno:)`` naming the path and
    ///   `errno` of the failed step (the temporary file is removed), or an invalid-name or read-only error.
    public func save(_ record: UnitRecord) throws(StateStoreError) {
        let path = try path(forUnit: record.unit)
        if isReadOnly { throw .readOnly(path: path) }
        let directoryFD = try openUnitsDirectory()
        defer { Posix.closeIgnoringErrors(directoryFD) }

        // A file from a newer lifecycled must survive a downgrade; a corrupt one may be replaced.
        if case .bytes(let existing) = try readFile(path),
            case .success(let document) = StateFileDecoder.parse(existing)
        {
            try StateFileDecoder.checkVersions(document, path: path)
        }
        let bytes = record.stateFileBytes
        do {
            try AtomicFile.write(
                bytes,
                to: UnitFileName.stateFile(of: record.unit),
                in: directoryFD,
                mode: Self.fileMode
            )
        } catch {
            throw .io(path: path, operation: error.step.rawValue, errno: error.error.errno)
        }
    }

    /// Opens the units directory for writing into it, creating it and the state directory when needed.
    func openUnitsDirectory() throws(StateStoreError) -> CInt {
        for directory in [directory, unitsDirectory] {
            do {
                try Posix.makeDirectory(directory, mode: 0o755)
            } catch {
                throw .io(path: directory, operation: "create directory", errno: error.errno)
            }
        }
        do {
            return try Posix.openFile(unitsDirectory, flags: O_RDONLY | O_DIRECTORY)
        } catch {
            throw .io(path: unitsDirectory, operation: "open directory", errno: error.errno)
        }
    }

    /// The record of `unit`, or nil when the unit has no state yet.
    ///
    /// A file that cannot be parsed is moved aside (left in place when read-only), reported in `warnings`, and the
    /// unit starts fresh (nil). Temporary files of the unit left by an interrupted save are deleted and reported.
    ///
    /// - Throws: ``StateStoreError/unsupportedVersion(path:key:found:supported:)`` for a file from a newer
    ///   lifecycled, ``StateStoreError/io(path:operation:errno:)`` when the file cannot be read or moved aside.
    public func load(unit: String, warnings: inout [StateStoreWarning]) throws(StateStoreError) -> UnitRecord? {
        try Self.validateUnitName(unit)
        let entries = try listUnitsDirectory()
        let stateFile = UnitFileName.stateFile(of: unit)
        for entry in entries where AtomicFile.temporaryTarget(of: entry) == stateFile {
            removeTemporaryFile(entry, warnings: &warnings)
        }
        return try loadRecord(file: stateFile, unit: unit, warnings: &warnings)
    }

    /// Everything ``loadAll()`` found: the records, sorted by unit name, and what was noticed on the way.
    public struct Contents: Sendable, Equatable {
        /// The records that could be read, sorted by unit name.
        public var records: [UnitRecord]
        /// Corrupt files moved aside, temporary files removed, stray files ignored.
        public var warnings: [StateStoreWarning]

        /// Creates contents, e.g. for a test double of the store.
        public init(records: [UnitRecord], warnings: [StateStoreWarning]) {
            self.records = records
            self.warnings = warnings
        }
    }

    /// Loads the records of every unit that has a state file, as the daemon does on start.
    ///
    /// - Returns: the records and the warnings; a missing directory gives no records.
    /// - Throws: ``StateStoreError/unsupportedVersion(path:key:found:supported:)`` when any file comes from a newer
    ///   lifecycled (the daemon must not start and later overwrite it), or an I/O error.
    public func loadAll() throws(StateStoreError) -> Contents {
        var warnings: [StateStoreWarning] = []
        var records: [UnitRecord] = []
        let entries = try listUnitsDirectory().sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        for entry in entries where AtomicFile.temporaryTarget(of: entry) != nil {
            removeTemporaryFile(entry, warnings: &warnings)
        }
        // Records with pending dispatches, whose dispatches are read again below.
        var withPending: [Int] = []
        for entry in entries {
            let unit: String?
            switch UnitFileName.entry(entry) {
            case nil:
                continue
            case .named(let named):
                if let reason = Self.namingProblem(named, entry: entry) {
                    let path = unitsDirectory + "/" + entry
                    warnings.append(StateStoreWarning(path: path, unit: nil, action: .ignored, reason: reason))
                    continue
                }
                unit = named
            case .hashed:
                // A long name's file: its content says which unit it holds.
                unit = nil
            }
            guard var record = try loadRecord(file: entry, unit: unit, warnings: &warnings) else { continue }
            if !record.pendingDispatches.isEmpty {
                record.pendingDispatches = []
                withPending.append(records.count)
            }
            records.append(record)
        }
        // Pending dispatches are kept until the journal confirms them, a moment after the start. Read between the
        // records, they would be freed from between the records' long-lived memory and leave it scattered over a
        // heap several times its size; read after every record, they are freed together (docs/PERFORMANCE.md).
        for index in withPending {
            records[index].pendingDispatches = try loadPendingDispatches(unit: records[index].unit)
        }
        // File-name order is not unit-name order ("a-b.json" sorts before "a.json"), so sort by the unit itself.
        records.sort { Array($0.unit.utf8).lexicographicallyPrecedes(Array($1.unit.utf8)) }
        return Contents(records: records, warnings: warnings)
    }

    // MARK: - Internals

    /// Why the directory entry `entry`, named as the state file of `unit`, is not its state file, or nil when it is.
    static func namingProblem(_ unit: String, entry: String) -> String? {
        if let reason = UnitFileName.invalidityReason(unit) { return reason }
        let expected = UnitFileName.stateFile(of: unit)
        return expected == entry ? nil : "not a state file name: the state of \"\(unit)\" is in \(expected)"
    }

    /// The record in the state file `name`: of `unit`, or, when `unit` is nil (a hashed name), of the unit its content
    /// names, provided that unit's state file is `name`. A file that fails either is corrupt: moved aside.
    func loadRecord(file name: String, unit: String?, warnings: inout [StateStoreWarning]) throws(StateStoreError)
        -> UnitRecord?
    {
        let path = unitsDirectory + "/" + name
        let bytes: [UInt8]
        switch try readFile(path) {
        case .missing:
            return nil
        case .tooLarge:
            return try setAside(
                file: name, unit: unit, reason: "larger than \(Self.maximumFileSize) bytes", warnings: &warnings
            )
        case .bytes(let contents):
            bytes = contents
        }
        switch try StateFileDecoder.decode(bytes, unit: unit, path: path) {
        case .record(let record):
            if unit == nil, Self.namingProblem(record.unit, entry: name) != nil {
                let reason = "it holds the state of \"\(record.unit)\", whose state file is not \(name)"
                return try setAside(file: name, unit: nil, reason: reason, warnings: &warnings)
            }
            return record
        case .corrupt(let reason):
            let claimed = unit ?? Self.claimedUnit(bytes, entry: name)
            return try setAside(file: name, unit: claimed, reason: reason, warnings: &warnings)
        }
    }

    /// The unit a corrupt file of a hashed name still names, when its `unit` is readable and its file name is this
    /// one, so that the daemon rebuilds that unit from the journal as it does for any corrupt file.
    private static func claimedUnit(_ bytes: [UInt8], entry: String) -> String? {
        guard case .success(let document) = StateFileDecoder.parse(bytes),
              case .string(let unit)? = document["unit"], namingProblem(unit, entry: entry) == nil
        else { return nil }
        return unit
    }

    /// The pending dispatches of a state file that ``loadRecord(unit:warnings:)`` has just read. The directory is
    /// locked, so the file is the same; if it is not, the start fails rather than lose a dispatch.
    private func loadPendingDispatches(unit: String) throws(StateStoreError) -> [JournalFields] {
        let path = unitsDirectory + "/" + UnitFileName.stateFile(of: unit)
        guard case .bytes(let bytes) = try readFile(path),
              case .record(let record) = try StateFileDecoder.decode(bytes, unit: unit, path: path)
        else {
            throw StateStoreError.io(path: path, operation: "read again (it changed while it was loaded)", errno: ESTALE)
        }
        return record.pendingDispatches
    }

    /// Moves a corrupt file out of the way (or leaves it when read-only) and records why; always returns nil, the
    /// fresh state of the unit.
    private func setAside(
        file name: String, unit: String?, reason: String, warnings: inout [StateStoreWarning]
    ) throws(StateStoreError) -> UnitRecord? {
        let path = unitsDirectory + "/" + name
        guard !isReadOnly else {
            warnings.append(StateStoreWarning(path: path, unit: unit, action: .leftInPlace, reason: reason))
            return nil
        }
        let stamp = Self.timestamp(clock())
        var attempt = 1
        var destination = UnitFileName.corruptFile(ofStateFile: name, stamp: stamp, attempt: attempt)
        do {
            while try Posix.status(unitsDirectory + "/" + destination) != nil {
                attempt += 1
                destination = UnitFileName.corruptFile(ofStateFile: name, stamp: stamp, attempt: attempt)
            }
            let directoryFD = try Posix.openFile(unitsDirectory, flags: O_RDONLY | O_DIRECTORY)
            defer { Posix.closeIgnoringErrors(directoryFD) }
            try Posix.renameFile(name, to: destination, in: directoryFD)
            try Posix.sync(directoryFD)
        } catch {
            throw .io(path: path, operation: "move aside (\(error.call))", errno: error.errno)
        }
        let destinationPath = unitsDirectory + "/" + destination
        warnings.append(
            StateStoreWarning(path: path, unit: unit, action: .movedAside(to: destinationPath), reason: reason)
        )
        return nil
    }
}
