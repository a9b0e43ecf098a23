// SPDX-License-Identifier: Apache-2.0

/// The rules that let a unit name become a file name without ever escaping the state directory.
enum UnitFileName {
    /// The suffix of every state file.
    static let fileExtension = ".json"
    /// The marker of a file moved aside, followed by a UTC time such as `20261121T213000Z`.
    static let corruptMarker = ".json.corrupt-"

    /// The longest accepted unit name, in bytes. systemd allows 255, but the longest file name made from it,
    /// `<unit>.json.corrupt-YYYYMMDDTHHMMSSZ-NN`, must fit into a file system's 255-byte name limit (`NAME_MAX`),
    /// and failing with `ENAMETOOLONG` in the middle of moving a corrupt file aside would be worse than refusing the
    /// name up front.
    static let maximumUnitNameBytes = 255 - (corruptMarker + "YYYYMMDDTHHMMSSZ-NN").utf8.count

    /// Why `name` cannot be a unit's file name, or nil when it can.
    static func invalidityReason(_ name: String) -> String? {
        if name.isEmpty { return "the name is empty" }
        if name == "." || name == ".." { return "\"\(name)\" is not a unit name" }
        if name.contains("/") { return "the name contains '/'" }
        // Temporary files start with '.', so a unit named like one could be taken for a leftover and deleted.
        if name.hasPrefix(".") { return "the name starts with '.'" }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "the name contains a control character"
        }
        if name.utf8.count > maximumUnitNameBytes {
            return "the name is longer than \(maximumUnitNameBytes) bytes, too long for its state file names"
        }
        return nil
    }

    /// `<unit>.json`.
    static func stateFile(of unit: String) -> String { unit + fileExtension }

    /// The unit a directory entry is the state file of, or nil for any other entry.
    static func unit(ofStateFile name: String) -> String? {
        guard name.hasSuffix(fileExtension), !name.hasPrefix(".") else { return nil }
        return String(name.dropLast(fileExtension.count))
    }

    /// `<unit>.json.corrupt-20261121T213000Z`, with `-2`, `-3`, … when that name is taken.
    static func corruptFile(of unit: String, stamp: String, attempt: Int) -> String {
        let base = unit + corruptMarker + stamp
        return attempt <= 1 ? base : "\(base)-\(attempt)"
    }
}
