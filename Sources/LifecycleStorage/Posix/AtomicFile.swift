// SPDX-License-Identifier: Apache-2.0

import Glibc
import Synchronization

/// Replaces a file so that a reader, a crash or a power cut sees either the old content or the new, never a mix.
///
/// The steps are those of systemd's `write_string_file_atomic()`: create `.<name>.XXXXXX` next to the target with
/// `O_CREAT|O_EXCL` (mode 0600, so no one reads it half-written), write everything, `fchmod` to the final mode,
/// `fsync` the file, `renameat` it over the target, then `fsync` the directory so the rename itself is durable. On
/// any failure the temporary file is unlinked. `O_TMPFILE` plus `linkat` is not used: it cannot replace an existing
/// name atomically, and some file systems lack it.
enum AtomicFile {
    /// The step that failed, phrased to complete "Failed to … <path>".
    enum Step: String, Sendable {
        case createTemporary = "create a temporary file for"
        case write = "write"
        case setMode = "set the mode of"
        case sync = "fsync"
        case close = "close"
        case rename = "rename a temporary file over"
        case syncDirectory = "fsync the directory of"
    }

    /// A failed step and its system call error.
    struct Failure: Error {
        var step: Step
        var error: SystemCallError
    }

    private static func temporaryPrefix(for name: String) -> String { ".\(name)." }

    /// The name a temporary file was going to replace, when `candidate` has the form `.<name>.XXXXXX` of a file
    /// left behind by an interrupted ``write(_:to:in:mode:)``; nil for any other name.
    static func temporaryTarget(of candidate: String) -> String? {
        let bytes = Array(candidate.utf8)
        // "." + at least one byte of name + "." + the random suffix.
        guard bytes.count >= suffixLength + 3, bytes[0] == UInt8(ascii: ".") else { return nil }
        let suffix = bytes[(bytes.count - suffixLength)...]
        guard bytes[bytes.count - suffixLength - 1] == UInt8(ascii: "."),
            suffix.allSatisfy({ suffixAlphabet.contains($0) })
        else { return nil }
        return String(decoding: bytes[1..<(bytes.count - suffixLength - 1)], as: UTF8.self)
    }

    /// Atomically replaces `name` in the open directory `directory` with `bytes`.
    static func write(_ bytes: [UInt8], to name: String, in directory: CInt, mode: mode_t) throws(Failure) {
        let (fd, temporary) = try createTemporary(for: name, in: directory)
        var isOpen = true
        var step = Step.write
        do throws(SystemCallError) {
            try Posix.writeAll(fd, bytes)
            step = .setMode
            try Posix.setMode(fd, mode)
            step = .sync
            try Posix.sync(fd)
            // close() releases the descriptor even when it fails, so it must never be closed a second time.
            isOpen = false
            step = .close
            try Posix.closeDescriptor(fd)
            step = .rename
            try Posix.renameFile(temporary, to: name, in: directory)
        } catch {
            if isOpen { Posix.closeIgnoringErrors(fd) }
            _ = try? Posix.unlinkFile(temporary, in: directory)
            throw Failure(step: step, error: error)
        }
        do throws(SystemCallError) {
            try Posix.sync(directory)
        } catch {
            // The new content is in place but its rename may not survive a power cut; the caller must know.
            throw Failure(step: .syncDirectory, error: error)
        }
    }

    private static let suffixLength = 6
    private static let suffixAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// Where the temporary names' suffixes come from: one getrandom(2) per process, then a counter mixed (SplitMix64),
    /// where one call per name was a tenth of a churn run's system calls (docs/PERFORMANCE.md, "The bus relay").
    /// `O_EXCL` still refuses a name that exists, whoever made it.
    private static let suffixSeed: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()
    private static let suffixCounter = Atomic<UInt64>(0)

    private static func nextSuffixBits() -> UInt64 {
        var z = suffixSeed &+ suffixCounter.wrappingAdd(1, ordering: .relaxed).newValue &* 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// `mkstemp` relative to a directory descriptor, which glibc does not offer (`mkostempsat` is not public).
    private static func createTemporary(for name: String, in directory: CInt) throws(Failure) -> (CInt, String) {
        var lastError = SystemCallError(errno: EEXIST, call: "open")
        for _ in 0..<100 {
            var bits = nextSuffixBits()
            let suffix = (0..<suffixLength).map { _ in
                defer { bits /= UInt64(suffixAlphabet.count) }
                return suffixAlphabet[Int(bits % UInt64(suffixAlphabet.count))]
            }
            let candidate = temporaryPrefix(for: name) + String(decoding: suffix, as: UTF8.self)
            do throws(SystemCallError) {
                let fd = try Posix.openFile(
                    candidate,
                    relativeTo: directory,
                    flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
                    mode: 0o600
                )
                return (fd, candidate)
            } catch let error where error.errno == EEXIST {
                lastError = error
            } catch {
                throw Failure(step: .createTemporary, error: error)
            }
        }
        throw Failure(step: .createTemporary, error: lastError)
    }
}

extension AtomicFile {
    /// Atomically replaces the file at the absolute `path` with `bytes`; its directory must exist.
    ///
    /// - Throws: ``StateStoreError/io(path:operation:errno:)`` naming the failed step.
    static func replace(_ bytes: [UInt8], at path: String, mode: mode_t) throws(StateStoreError) {
        let slash = path.lastIndex(of: "/") ?? path.startIndex
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        let name = String(path[path.index(after: slash)...])
        let directoryFD: CInt
        do {
            directoryFD = try Posix.openFile(directory, flags: O_RDONLY | O_DIRECTORY)
        } catch {
            throw .io(path: directory, operation: "open directory", errno: error.errno)
        }
        defer { Posix.closeIgnoringErrors(directoryFD) }
        do {
            try write(bytes, to: name, in: directoryFD, mode: mode)
        } catch {
            throw .io(path: path, operation: error.step.rawValue, errno: error.error.errno)
        }
    }
}
