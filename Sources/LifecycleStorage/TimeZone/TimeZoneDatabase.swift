// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

import Glibc

/// The system's tz database: zone files in TZif format under `/usr/share/zoneinfo`, and `/etc/localtime`.
///
/// It reads the files itself because Foundation's `TimeZone` has no zone data in the static release binaries; the
/// parsing is the engine's (``TimeZoneRules/init(tzif:name:)``), which stays free of I/O.
public struct TimeZoneDatabase: Sendable {
    /// Where Debian, Fedora and glibc keep the zone files.
    public static let defaultDirectory = "/usr/share/zoneinfo"
    /// The machine's zone, usually a symbolic link into ``defaultDirectory`` (`timedatectl set-timezone` sets it).
    public static let defaultLocaltime = "/etc/localtime"
    /// Larger files are refused: the biggest zone file is a few kilobytes.
    static let maximumFileSize = 1 << 20

    /// The directory of the zone files.
    public let directory: String
    /// The file of the machine's zone.
    public let localtime: String

    /// A database at the given places.
    ///
    /// - Parameters:
    ///   - directory: the directory of the zone files.
    ///   - localtime: the file of the machine's zone.
    public init(directory: String = defaultDirectory, localtime: String = defaultLocaltime) {
        self.directory = directory
        self.localtime = localtime
    }

    /// The database as glibc finds it: `$TZDIR` when it is set to an absolute path, else ``defaultDirectory``.
    public static var system: TimeZoneDatabase {
        let tzdir = getenv("TZDIR").map { String(cString: $0) } ?? ""
        return TimeZoneDatabase(directory: tzdir.hasPrefix("/") ? tzdir : defaultDirectory)
    }

    /// The zone of an IANA name, such as `Europe/Berlin`, `America/New_York` or `UTC`.
    ///
    /// - Parameter name: the name; it must not be absolute or contain a `..` component, so that a configuration
    ///   cannot make lifecycled read files outside the database.
    /// - Throws: ``TimeZoneError`` naming the zone and the file.
    public func zone(named name: String) throws(TimeZoneError) -> TimeZoneRules {
        let components = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.isEmpty, !name.hasPrefix("/"), !name.utf8.contains(0), !components.contains("..") else {
            throw .invalidName(name: name)
        }
        return try rules(atPath: "\(directory)/\(name)", name: name)
    }

    /// Reads and parses one TZif file.
    func rules(atPath path: String, name: String) throws(TimeZoneError) -> TimeZoneRules {
        let bytes: [UInt8]
        do {
            let fd = try Posix.openFile(path, flags: O_RDONLY)
            defer { Posix.closeIgnoringErrors(fd) }
            bytes = try Posix.readAll(fd, limit: Self.maximumFileSize)
        } catch let error where [ENOENT, ENOTDIR, EISDIR].contains(error.errno) {
            // A directory (`Europe`) or a path through a file is no zone either.
            throw .unknownZone(name: name, path: path)
        } catch {
            throw .unreadable(path: path, errno: error.errno)
        }
        do {
            return try TimeZoneRules(tzif: bytes, name: name)
        } catch {
            throw .invalidData(path: path, reason: error)
        }
    }
}
