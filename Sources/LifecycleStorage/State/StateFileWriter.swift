// SPDX-License-Identifier: Apache-2.0

import Glibc

/// The daemon's writer of state files: ``StateStore/save(_:)`` for the one process that owns the directory, without
/// the work that each save would otherwise repeat. A record is saved twice per run, so this is on the daemon's path
/// for every run.
///
/// - The units directory is opened (and created) once and kept open. Before each save one `stat` of its path checks
///   that the path still leads to it: a directory removed, or moved aside and replaced, while lifecycled runs is
///   opened (and created) again, so no save goes into a deleted or moved directory.
/// - The existing file is not read back to refuse one from a newer lifecycled: the daemon loaded every file with
///   ``StateStore/loadAll()``, which refuses such files, and holds the directory's lock (``StateDirectoryLock``), so
///   no other lifecycled writes there meanwhile.
///
/// Each save is still atomic and durable (see `AtomicFile`). Not `Sendable`: one owner, which the daemon's loop is.
public final class StateFileWriter {
    public let store: StateStore
    private var directoryFD: CInt = -1
    /// Device and inode of the open directory, to tell whether its path still leads to it.
    private var directoryIdentity: (device: dev_t, inode: ino_t)?

    /// A writer for `store`, which must not be read-only. Nothing is opened until the first save.
    public init(store: StateStore) {
        precondition(!store.isReadOnly, "a StateFileWriter writes")
        self.store = store
    }

    deinit {
        if directoryFD >= 0 { Posix.closeIgnoringErrors(directoryFD) }
    }

    /// Writes `record` to its unit's file, atomically and durably.
    ///
    /// - Throws: ``StateStoreError/io(path:operation:errno:)`` naming the path and `errno` of the failed step (the
    ///   temporary file is removed), or ``StateStoreError/invalidUnitName(_:reason:)``.
    public func save(_ record: UnitRecord) throws(StateStoreError) {
        try StateStore.validateUnitName(record.unit)
        let name = UnitFileName.stateFile(of: record.unit)
        let directory = try openDirectory()
        do {
            try AtomicFile.write(record.stateFileBytes, to: name, in: directory, mode: StateStore.fileMode)
        } catch {
            throw .io(path: store.unitsDirectory + "/" + name, operation: error.step.rawValue, errno: error.error.errno)
        }
    }

    /// Deletes the state files of `units` (those that have one), durably: their records are archived.
    ///
    /// - Throws: ``StateStoreError/io(path:operation:errno:)`` for the first file that could not be removed.
    public func remove(_ units: [String]) throws(StateStoreError) {
        let directory = try openDirectory()
        for unit in units {
            let path = try store.path(forUnit: unit)
            do {
                try Posix.unlinkFile(UnitFileName.stateFile(of: unit), in: directory)
            } catch where error.errno == ENOENT {
            } catch {
                throw .io(path: path, operation: "unlink", errno: error.errno)
            }
        }
        do {
            try Posix.sync(directory)
        } catch {
            throw .io(path: store.unitsDirectory, operation: "fsync", errno: error.errno)
        }
    }

    /// The open units directory, opened (and created) again when its path no longer leads to it: removed, or moved
    /// aside with a new one in its place.
    private func openDirectory() throws(StateStoreError) -> CInt {
        if directoryFD >= 0 {
            var status = stat()
            if stat(store.unitsDirectory, &status) == 0, let known = directoryIdentity,
               status.st_dev == known.device, status.st_ino == known.inode
            {
                return directoryFD
            }
            Posix.closeIgnoringErrors(directoryFD)
            directoryFD = -1
        }
        directoryFD = try store.openUnitsDirectory()
        var status = stat()
        directoryIdentity = fstat(directoryFD, &status) == 0 ? (status.st_dev, status.st_ino) : nil
        return directoryFD
    }
}
