// SPDX-License-Identifier: Apache-2.0

/// The rules that let a unit name become a file name without ever escaping the state directory, for every name systemd
/// allows (docs/configuration.md, "State files").
///
/// - A name whose file names fit keeps `<unit>.json`: the file name says which unit it holds.
/// - A longer name gets `<prefix>~<hash>.json`: as much of the name as fits, `~`, and the first 32 hexadecimal digits
///   of the name's SHA-256. Such a file is the state of the unit its content names, and only if that unit's file
///   name is this one; names that share their prefix differ in their hash.
///
/// systemd allows no `~` in unit names, so no `<unit>.json` of a real unit looks like a hashed name; a name that does
/// anyway (`foo~` and 32 hexadecimal digits) is hashed too, so the two forms never meet.
enum UnitFileName {
    /// The suffix of every state file.
    static let fileExtension = ".json"
    /// The marker of a file moved aside, followed by a UTC time such as `20261121T213000Z`.
    static let corruptMarker = ".json.corrupt-"

    /// The longest accepted unit name, in bytes: systemd's (`UNIT_NAME_MAX`, 256 with the terminating NUL).
    static let maximumUnitNameBytes = 255

    /// The longest name of a state file without its `.json`. The longest file name made from it,
    /// `<stem>.json.corrupt-YYYYMMDDTHHMMSSZ-NN`, must fit into a file system's 255-byte name limit (`NAME_MAX`):
    /// moving a corrupt file aside must never fail half-way with `ENAMETOOLONG`. The
    /// temporary file of a save, `.<stem>.json.XXXXXX`, is shorter.
    static let maximumStemBytes = 255 - (corruptMarker + "YYYYMMDDTHHMMSSZ-NN").utf8.count

    /// Between the readable prefix of a long name and its hash.
    static let hashSeparator: UInt8 = UInt8(ascii: "~")
    /// How many hexadecimal digits of the SHA-256 of a long name its file name carries: 128 bits.
    static let hashDigits = 32

    /// Why `name` cannot be a unit's name, or nil when it can.
    ///
    /// Checked at every save, so in one pass over the name's bytes: a control character (below 0x20, or 0x7F) is one
    /// byte in UTF-8, as `/` and `.` are, and no byte of a longer character is below 0x80.
    static func invalidityReason(_ name: String) -> String? {
        var slash = false
        var control = false
        var count = 0
        for byte in name.utf8 {
            count += 1
            if byte == UInt8(ascii: "/") { slash = true }
            if byte < 0x20 || byte == 0x7F { control = true }
        }
        if count == 0 { return "the name is empty" }
        if name == "." || name == ".." { return "\"\(name)\" is not a unit name" }
        if slash { return "the name contains '/'" }
        // Temporary files start with '.', so a unit named like one could be taken for a leftover and deleted.
        if name.utf8.first == UInt8(ascii: ".") { return "the name starts with '.'" }
        if control { return "the name contains a control character" }
        if count > maximumUnitNameBytes {
            return "the name is longer than \(maximumUnitNameBytes) bytes, systemd's limit for unit names"
        }
        return nil
    }

    /// What a directory entry of the units directory is.
    enum Entry: Equatable {
        /// `<unit>.json`: the state file of `unit`, if that is the unit's file name.
        case named(unit: String)
        /// `<prefix>~<hash>.json`: the state file of the unit its content names, if that unit's file name is this one.
        case hashed
    }

    /// The name of the state file of `unit`: `<unit>.json`, or `<prefix>~<hash>.json` for a name too long for that.
    static func stateFile(of unit: String) -> String { stem(of: unit) + fileExtension }

    /// The state file's name without `.json`.
    static func stem(of unit: String) -> String {
        let bytes = Array(unit.utf8)
        if bytes.count <= maximumStemBytes, !isHashed(bytes[...]) { return unit }
        // The longest prefix of whole characters (Unicode scalars) that leaves room for the separator and the hash.
        let room = maximumStemBytes - 1 - hashDigits
        var prefixLength = 0
        for scalar in unit.unicodeScalars {
            let length = UTF8.width(scalar)
            if prefixLength + length > room { break }
            prefixLength += length
        }
        let hash = SHA256.hexDigest(bytes).prefix(hashDigits)
        return String(decoding: bytes[..<prefixLength], as: UTF8.self) + "~" + hash
    }

    /// What the directory entry `name` is, or nil for an entry that is no state file.
    static func entry(_ name: String) -> Entry? {
        guard name.hasSuffix(fileExtension), !name.hasPrefix(".") else { return nil }
        let stem = Array(name.utf8.dropLast(fileExtension.utf8.count))
        if isHashed(stem[...]) { return .hashed }
        return .named(unit: String(decoding: stem, as: UTF8.self))
    }

    /// The unit a directory entry is the state file of, when its name says so: nil for a hashed name or any other
    /// entry.
    static func unit(ofStateFile name: String) -> String? {
        guard case .named(let unit)? = entry(name) else { return nil }
        return unit
    }

    /// `<stem>.json.corrupt-20261121T213000Z`, with `-2`, `-3`, … when that name is taken, for the state file `name`.
    static func corruptFile(ofStateFile name: String, stamp: String, attempt: Int) -> String {
        let base = String(name.dropLast(fileExtension.count)) + corruptMarker + stamp
        return attempt <= 1 ? base : "\(base)-\(attempt)"
    }

    /// Whether `stem` ends in `~` and 32 lowercase hexadecimal digits, as a hashed name does.
    private static func isHashed(_ stem: ArraySlice<UInt8>) -> Bool {
        guard stem.count > hashDigits else { return false }
        let digits = stem.suffix(hashDigits)
        return stem[stem.endIndex - hashDigits - 1] == hashSeparator
            && digits.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
