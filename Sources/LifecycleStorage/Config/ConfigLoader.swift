// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

import Glibc

/// Reads lifecycled's configuration: one main file plus drop-ins, merged, validated and decoded.
///
/// The main file is `/etc/lifecycled/lifecycled.json` unless another path is given. Drop-ins are the `*.json` files
/// of `<path>.d/`, applied on top of the main file in lexical (byte) order, so `50-site.json` overrides
/// `10-vendor.json`. Merging is deep: objects merge key by key, while arrays and other values replace what came
/// before, so a drop-in's `watch` is the whole list. Hidden files and anything that is not a regular file are
/// skipped, which also lets a drop-in be masked with a symlink to `/dev/null`, as with systemd's drop-ins.
///
/// Without an explicit path, a missing main file means "all defaults" (drop-ins still apply); an explicit path that
/// does not exist is an error, since it is most likely a typo on the command line.
///
/// Every file is also decoded on its own before the merge, so an error names the file that holds the bad value.
public struct ConfigLoader: Sendable {
    /// The main configuration file when none is given.
    public static let defaultPath = "/etc/lifecycled/lifecycled.json"
    /// Larger files are refused: a configuration is a few kilobytes, anything near this is a mistake.
    public static let maximumFileSize = 1 << 20

    /// The main configuration file.
    public let path: String
    /// True when a missing ``path`` is an error rather than "all defaults".
    public let mustExist: Bool

    /// A loader for `path`, or for ``defaultPath`` when `path` is nil.
    ///
    /// - Parameter path: an explicitly chosen configuration file (for example one named on the command line), or nil.
    public init(path: String? = nil) {
        self.path = path ?? Self.defaultPath
        self.mustExist = path != nil
    }

    /// A loader for `path` that treats a missing main file as an error or as "all defaults".
    ///
    /// - Parameters:
    ///   - path: the main configuration file.
    ///   - mustExist: true to refuse a missing file.
    public init(path: String, mustExist: Bool) {
        self.path = path
        self.mustExist = mustExist
    }

    /// The drop-in directory: the main path with `.d` appended.
    public var dropInDirectory: String { path + ".d" }

    /// Reads, merges and decodes the configuration.
    ///
    /// - Returns: the configuration; all defaults when neither the main file nor any drop-in exists.
    /// - Throws: ``ConfigError`` naming the file, and the key path or line and column, of the first problem.
    public func load() throws(ConfigError) -> LifecycleConfiguration {
        try loadWithSources().configuration
    }

    /// Reads the configuration like ``load()``, but leaves out every file that is invalid on its own instead of
    /// failing: for readers such as `lifecyclectl status`, which can go on with the rest and a warning.
    ///
    /// - Returns: the configuration of the valid files, and the error of each file left out, in file order.
    /// - Throws: ``ConfigError`` when the list of files itself cannot be had (a missing explicit path, an unreadable
    ///   drop-in directory).
    public func loadSkippingInvalidFiles() throws(ConfigError) -> (LifecycleConfiguration, [ConfigError]) {
        var merged = JSONValue.object([:])
        var skipped: [ConfigError] = []
        for file in try files() {
            do {
                let document = try Self.parse(try Self.read(file), file: file)
                _ = try Self.decode(document, file: file)
                merged = Self.merge(merged, document)
            } catch {
                skipped.append(error)
            }
        }
        do {
            return (try Self.decode(merged, file: path), skipped)
        } catch {
            return (LifecycleConfiguration(), skipped + [error])
        }
    }

    /// Reads the configuration like ``load()`` and also says where each top-level key came from, for
    /// `lifecycled --check-config`.
    ///
    /// - Returns: the files read, in order, and for each top-level key the last file that set it (a drop-in's
    ///   value replaces an earlier one, merging only objects), sorted by key.
    public func loadWithSources() throws(ConfigError) -> ConfigSources {
        var merged = JSONValue.object([:])
        var sources: [String: String] = [:]
        let files = try files()
        for file in files {
            let document = try Self.parse(try Self.read(file), file: file)
            _ = try Self.decode(document, file: file)
            merged = Self.merge(merged, document)
            if case .object(let keys) = document {
                for key in keys.keys { sources[key] = file }
            }
        }
        // Each part decoded on its own and the merge only replaces whole settings, so this cannot fail for a reason
        // the parts did not already report; if it ever does, blame the main file.
        return ConfigSources(
            configuration: try Self.decode(merged, file: path),
            files: files,
            keySources: sources.sorted { $0.key < $1.key }.map { (key: $0.key, file: $0.value) }
        )
    }

    /// The files ``load()`` reads, in the order they are applied: the main file when it exists, then the drop-ins.
    ///
    /// - Throws: ``ConfigError/fileNotFound(file:)`` for a missing explicit path, or an I/O error.
    public func files() throws(ConfigError) -> [String] {
        var files: [String] = []
        let info: stat?
        do {
            info = try Posix.status(path)
        } catch {
            throw ConfigError.io(file: path, operation: "stat", errno: error.errno)
        }
        if let info {
            guard info.st_mode & S_IFMT == S_IFREG else {
                throw ConfigError.invalidValue(file: path, key: "", reason: "not a regular file")
            }
            files.append(path)
        } else if mustExist {
            throw ConfigError.fileNotFound(file: path)
        }
        let names: [String]
        do {
            names = try Posix.directoryEntries(dropInDirectory) ?? []
        } catch {
            throw ConfigError.io(file: dropInDirectory, operation: "read directory", errno: error.errno)
        }
        let candidates = names.filter { !$0.hasPrefix(".") && $0.hasSuffix(".json") }
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        for name in candidates {
            let file = "\(dropInDirectory)/\(name)"
            do {
                if let info = try Posix.status(file), info.st_mode & S_IFMT == S_IFREG { files.append(file) }
            } catch {
                throw ConfigError.io(file: file, operation: "stat", errno: error.errno)
            }
        }
        return files
    }

    /// Decodes one parsed configuration document, without touching the file system.
    ///
    /// - Parameters:
    ///   - json: the document, usually from `JSONParser.parse(_:)`.
    ///   - file: the file name to put into error messages.
    /// - Returns: the configuration; keys that are absent or `null` keep their defaults.
    /// - Throws: ``ConfigError/unknownKey(file:key:suggestion:)`` or ``ConfigError/invalidValue(file:key:reason:)``.
    public static func decode(_ json: JSONValue, file: String) throws(ConfigError) -> LifecycleConfiguration {
        try ConfigDecoder(file: file).configuration(from: json)
    }

    /// Parses configuration text, turning the parser's byte offset into a line and a column.
    ///
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - file: the file name to put into error messages.
    /// - Throws: ``ConfigError/invalidEncoding(file:)`` or ``ConfigError/syntax(file:line:column:reason:)``.
    public static func parse(_ bytes: [UInt8], file: String) throws(ConfigError) -> JSONValue {
        guard String(validating: bytes, as: UTF8.self) != nil else { throw ConfigError.invalidEncoding(file: file) }
        do {
            return try JSONParser.parse(bytes)
        } catch {
            let position = TextPosition(byteOffset: error.column - 1, in: bytes)
            throw ConfigError.syntax(file: file, line: position.line, column: position.column, reason: error.reason)
        }
    }

    /// Applies `overlay` on top of `base`: objects merge key by key, anything else replaces.
    public static func merge(_ base: JSONValue, _ overlay: JSONValue) -> JSONValue {
        guard case .object(var merged) = base, case .object(let additions) = overlay else { return overlay }
        for (key, value) in additions {
            merged[key] = merged[key].map { merge($0, value) } ?? value
        }
        return .object(merged)
    }

    private static func read(_ file: String) throws(ConfigError) -> [UInt8] {
        let fd: CInt
        do {
            fd = try Posix.openFile(file, flags: O_RDONLY)
        } catch {
            throw ConfigError.io(file: file, operation: "open", errno: error.errno)
        }
        defer { Posix.closeIgnoringErrors(fd) }
        do {
            return try Posix.readAll(fd, limit: maximumFileSize)
        } catch let error where error.errno == EFBIG {
            throw ConfigError.invalidValue(file: file, key: "", reason: "larger than \(maximumFileSize) bytes")
        } catch {
            throw ConfigError.io(file: file, operation: "read", errno: error.errno)
        }
    }
}
