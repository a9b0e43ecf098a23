// SPDX-License-Identifier: Apache-2.0

/// One line of `/proc/PID/maps` (`proc_pid_maps(5)`): an address range, its permissions and the file behind it.
struct MemoryMapping: Equatable {
    var addresses: Range<UInt>
    var isReadable: Bool
    var isWritable: Bool
    var isExecutable: Bool
    /// The file's device ("major:minor", hexadecimal) and inode; inode 0 for anonymous memory.
    var device: String
    var inode: UInt64
    /// The file's path, or a pseudo-path like `[heap]`; empty for anonymous memory.
    var path: String

    /// Parses `start-end perms offset dev inode [path]`; nil for a line that does not have this shape.
    init?(line: Substring) {
        let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
        guard fields.count >= 5 else { return nil }
        let bounds = fields[0].split(separator: "-")
        let permissions = Array(fields[1].utf8)
        guard bounds.count == 2, permissions.count == 4,
              let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), start <= end,
              let inode = UInt64(fields[4])
        else { return nil }
        addresses = start..<end
        isReadable = permissions[0] == UInt8(ascii: "r")
        isWritable = permissions[1] == UInt8(ascii: "w")
        isExecutable = permissions[2] == UInt8(ascii: "x")
        device = String(fields[3])
        self.inode = inode
        path = fields.count > 5 ? String(fields[5].drop { $0 == " " }) : ""
    }

    /// Every mapping of `text`, lines that do not parse left out.
    static func all(in text: String) -> [MemoryMapping] {
        text.split(separator: "\n").compactMap(MemoryMapping.init(line:))
    }

    /// Whether this maps a part of the same file as `other`.
    func mapsSameFile(as other: MemoryMapping) -> Bool {
        inode != 0 && inode == other.inode && device == other.device
    }
}
