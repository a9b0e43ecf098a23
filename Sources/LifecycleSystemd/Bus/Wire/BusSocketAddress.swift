// SPDX-License-Identifier: Apache-2.0

import Glibc

/// The unix socket a D-Bus address names, for the bus relay, which connects itself (docs/architecture.md, "The bus
/// relay").
///
/// A D-Bus address is a `;`-separated list of `transport:key=value,…` entries, values escaped with `%XX`; the first
/// `unix:` entry with a `path` or an `abstract` name is taken, as sd-bus does.
struct BusSocketAddress: Equatable {
    /// The socket's path, or its name in the abstract namespace.
    let name: [UInt8]
    let isAbstract: Bool

    init(name: [UInt8], isAbstract: Bool) {
        self.name = name
        self.isAbstract = isAbstract
    }

    /// The socket of `text`, or nil when it names none lifecycled can use.
    init?(_ text: String) {
        for entry in text.split(separator: ";") {
            guard entry.hasPrefix("unix:") else { continue }
            for pair in entry.dropFirst("unix:".count).split(separator: ",") {
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let key = pair[..<equals]
                guard key == "path" || key == "abstract", let value = Self.unescape(pair[pair.index(after: equals)...])
                else { continue }
                name = value
                isAbstract = key == "abstract"
                return
            }
        }
        return nil
    }

    /// Where `address` leads: the environment's address for the system and user buses, as sd-bus reads it.
    static func resolve(_ address: BusAddress) throws(SystemdError) -> BusSocketAddress {
        let text: String
        switch address {
        case .system:
            text = Self.environment("DBUS_SYSTEM_BUS_ADDRESS") ?? "unix:path=/run/dbus/system_bus_socket"
        case .user:
            if let session = Self.environment("DBUS_SESSION_BUS_ADDRESS") {
                text = session
            } else if let runtime = Self.environment("XDG_RUNTIME_DIR") {
                text = "unix:path=\(runtime)/bus"
            } else {
                throw SystemdError(
                    errno: ENOMEDIUM, operation: "find the user bus",
                    message: "Neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set"
                )
            }
        case .address(let explicit):
            text = explicit
        }
        guard let socket = BusSocketAddress(text) else {
            throw SystemdError(
                errno: EINVAL, operation: "connect to the \(address)",
                message: "The address '\(text)' names no unix socket (unix:path= or unix:abstract=)"
            )
        }
        return socket
    }

    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return String(cString: value)
    }

    /// `%XX` escapes decoded; nil for a broken escape.
    private static func unescape(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.next().flatMap(BusObjectPath.hexValue),
                  let low = utf8.next().flatMap(BusObjectPath.hexValue)
            else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes.isEmpty ? nil : bytes
    }

    /// A non-blocking stream socket connected to this address.
    func connect() throws(SystemdError) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let offset = isAbstract ? 1 : 0  // an abstract name begins with a NUL
        guard name.count + offset < capacity else {
            throw SystemdError(errno: ENAMETOOLONG, operation: "connect to the bus at \(self)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { path in path.copyBytes(from: isAbstract ? [0] + name : name) }
        let length = MemoryLayout<sa_family_t>.size + offset + name.count + (isAbstract ? 0 : 1)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw SystemdError(errno: Glibc.errno, operation: "create a socket for the bus") }
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(length)) }
        }
        if r < 0 {
            // A unix socket connects at once or not at all; EAGAIN is a full backlog (a stalled bus daemon): the
            // connection is tried again later, like any that fails.
            let code = Glibc.errno
            close(fd)
            throw SystemdError(errno: code, operation: "connect to the bus at \(self)")
        }
        return fd
    }
}

extension BusSocketAddress: CustomStringConvertible {
    var description: String {
        (isAbstract ? "@" : "") + String(decoding: name, as: UTF8.self)
    }
}
