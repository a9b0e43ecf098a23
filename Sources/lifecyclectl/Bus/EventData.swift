// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// The local checks of an event's command-line arguments: `KEY=VALUE` data and custom event names.
///
/// lifecycled checks the same and more (unit watched, size limits); checking here first turns a typo into a usage
/// error (exit status 64) without a round trip.
enum EventData {
    /// Parses `KEY=VALUE` arguments; the value is everything after the first `=` and may be empty.
    ///
    /// - Throws: `ValidationError` for an argument without `=`, an empty key, or a key given twice.
    static func parse(_ arguments: [String]) throws(ValidationError) -> [String: String] {
        var data: [String: String] = [:]
        for argument in arguments {
            guard let equals = argument.firstIndex(of: "=") else {
                throw ValidationError("Invalid data \"\(argument)\": expected KEY=VALUE.")
            }
            let key = String(argument[..<equals])
            guard !key.isEmpty else {
                throw ValidationError("Invalid data \"\(argument)\": the key must not be empty.")
            }
            guard data[key] == nil else {
                throw ValidationError("Invalid data \"\(argument)\": the key \(key) is given twice.")
            }
            data[key] = String(argument[argument.index(after: equals)...])
        }
        return data
    }

    /// The longest event name lifecycled accepts.
    static let maximumEventNameLength = 64

    /// Checks a custom event's name: 1 to 64 printable ASCII characters without spaces, as lifecycled requires.
    ///
    /// - Throws: `ValidationError` otherwise.
    static func validateEventName(_ name: String) throws(ValidationError) {
        let isPrintable = name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
        guard !name.isEmpty, name.utf8.count <= maximumEventNameLength, isPrintable else {
            throw ValidationError(
                """
                Invalid event name "\(name)": use 1 to \(maximumEventNameLength) printable ASCII characters \
                without spaces.
                """
            )
        }
    }
}
