// SPDX-License-Identifier: Apache-2.0

/// Why a configuration could not be loaded. Every case names the file; value errors also name the key path.
///
/// ``description`` is the message for the operator, in the form `<file>: <key path>: <reason>`, for example
/// `/etc/lifecycled/lifecycled.json: watch[2].session_timeout: expected an integer number of minutes, found a
/// string`. Syntax errors use `<file>:<line>:<column>: <reason>`, the form editors jump to.
public enum ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A configuration file that was named explicitly does not exist.
    case fileNotFound(file: String)
    /// A file or directory could not be read.
    case io(file: String, operation: String, errno: Int32)
    /// A file is not valid UTF-8.
    case invalidEncoding(file: String)
    /// A file is not valid JSON; `line` and `column` are 1-based, the column counts characters.
    case syntax(file: String, line: Int, column: Int, reason: String)
    /// A key that the format does not have, with the closest known key when one is similar.
    case unknownKey(file: String, key: String, suggestion: String?)
    /// A key whose value has the wrong type or is out of range. `key` is a path such as `watch[2].session_timeout`;
    /// it is empty for the document itself.
    case invalidValue(file: String, key: String, reason: String)

    /// The file the error is about.
    public var file: String {
        switch self {
        case .fileNotFound(let file), .io(let file, _, _), .invalidEncoding(let file), .syntax(let file, _, _, _),
            .unknownKey(let file, _, _), .invalidValue(let file, _, _):
            file
        }
    }

    public var description: String {
        switch self {
        case .fileNotFound(let file):
            return "\(file): configuration file not found"
        case .io(let file, let operation, let errno):
            return "\(file): failed to \(operation): \(Posix.describe(errno: errno))"
        case .invalidEncoding(let file):
            return "\(file): not valid UTF-8"
        case .syntax(let file, let line, let column, let reason):
            return "\(file):\(line):\(column): invalid JSON: \(reason)"
        case .unknownKey(let file, let key, let suggestion):
            let hint = suggestion.map { " (did you mean \"\($0)\"?)" } ?? ""
            return "\(file): \(key): unknown key\(hint)"
        case .invalidValue(let file, let key, let reason):
            return key.isEmpty ? "\(file): \(reason)" : "\(file): \(key): \(reason)"
        }
    }
}
