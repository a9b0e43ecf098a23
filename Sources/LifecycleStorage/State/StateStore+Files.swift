// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

import Glibc

/// The file-system chores of ``StateStore``: reading, listing, cleaning up and naming.
extension StateStore {
    enum FileContents {
        case missing
        case tooLarge
        case bytes([UInt8])
    }

    func readFile(_ path: String) throws(StateStoreError) -> FileContents {
        let fd: CInt
        do {
            fd = try Posix.openFile(path, flags: O_RDONLY)
        } catch let error where error.errno == ENOENT {
            return .missing
        } catch {
            throw .io(path: path, operation: "open", errno: error.errno)
        }
        defer { Posix.closeIgnoringErrors(fd) }
        do {
            return .bytes(try Posix.readAll(fd, limit: Self.maximumFileSize))
        } catch let error where error.errno == EFBIG {
            return .tooLarge
        } catch {
            throw .io(path: path, operation: "read", errno: error.errno)
        }
    }

    /// The units that have a state file (for "did you mean" hints), reading only the files of long names, whose
    /// names do not say their unit. A file that cannot be read is left out.
    public func unitNames() throws(StateStoreError) -> [String] {
        try listUnitsDirectory().compactMap { entry -> String? in
            switch UnitFileName.entry(entry) {
            case nil:
                return nil
            case .named(let unit):
                return Self.namingProblem(unit, entry: entry) == nil ? unit : nil
            case .hashed:
                guard case .bytes(let bytes)? = try? readFile(unitsDirectory + "/" + entry),
                      case .record(let record)? = try? StateFileDecoder.decode(bytes, unit: nil, path: entry),
                      Self.namingProblem(record.unit, entry: entry) == nil
                else { return nil }
                return record.unit
            }
        }
    }

    /// The names in the units directory; none when it does not exist yet.
    func listUnitsDirectory() throws(StateStoreError) -> [String] {
        do {
            return try Posix.directoryEntries(unitsDirectory) ?? []
        } catch {
            throw .io(path: unitsDirectory, operation: "read directory", errno: error.errno)
        }
    }

    /// Deletes a temporary file that an interrupted save left behind. Failing to delete it is reported, not
    /// thrown: the leftover is harmless, and the unit's real file can still be loaded.
    func removeTemporaryFile(_ name: String, warnings: inout [StateStoreWarning]) {
        let path = unitsDirectory + "/" + name
        let unit = AtomicFile.temporaryTarget(of: name).flatMap(UnitFileName.unit(ofStateFile:))
        guard !isReadOnly else { return }
        do {
            try Posix.unlinkFile(path, in: AT_FDCWD)
            warnings.append(
                StateStoreWarning(
                    path: path,
                    unit: unit,
                    action: .removedTemporaryFile,
                    reason: "left behind by an interrupted save"
                )
            )
        } catch {
            warnings.append(
                StateStoreWarning(
                    path: path,
                    unit: unit,
                    action: .ignored,
                    reason: "a leftover temporary file that could not be removed: \(Posix.describe(errno: error.errno))"
                )
            )
        }
    }

    /// `20261121T213000Z`: the UTC second of `date`, in the basic ISO 8601 form that sorts and needs no escaping.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        gmtime_r(&seconds, &fields)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return pad(fields.tm_year + 1900, 4) + pad(fields.tm_mon + 1, 2) + pad(fields.tm_mday, 2) + "T"
            + pad(fields.tm_hour, 2) + pad(fields.tm_min, 2) + pad(fields.tm_sec, 2) + "Z"
    }
}
