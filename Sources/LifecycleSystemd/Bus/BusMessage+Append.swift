// SPDX-License-Identifier: Apache-2.0

import CSystemd

extension BusMessage {
    /// Appends a fixed-size basic value (`y b n q i u x t d`) from its in-memory representation.
    ///
    /// Wraps `sd_bus_message_append_basic(3)`. The Swift type fixes the width, so a `b` is always an `Int32` and a
    /// `t` always a `UInt64`, which the variadic `sd_bus_message_append` cannot check.
    func appendFixed<T: BitwiseCopyable>(_ type: CChar, _ value: T, _ what: String) throws(SystemdError) {
        var value = value
        let r = withUnsafeBytes(of: &value) { sd_bus_message_append_basic(pointer, type, $0.baseAddress) }
        try check(r, "append \(what)")
    }

    /// Appends a string-like basic value (`s`, `o` or `g`).
    ///
    /// Wraps `sd_bus_message_append_basic(3)`, which copies the string.
    func appendText(_ type: CChar, _ text: String, _ what: String) throws(SystemdError) {
        let r = text.withCString { sd_bus_message_append_basic(pointer, type, $0) }
        try check(r, "append \(what)")
    }

    /// Appends any ``BusRepresentable`` value, e.g. `try message.append(["a.service"])` for an `as`.
    public func append<T: BusRepresentable>(_ value: T) throws(SystemdError) {
        try value.append(to: self)
    }

    /// Appends an `ay` in one go.
    ///
    /// Wraps `sd_bus_message_append_array(3)`.
    public func append(bytes: [UInt8]) throws(SystemdError) {
        let r = bytes.withUnsafeBytes {
            sd_bus_message_append_array(pointer, BusTypeCode.byte, $0.baseAddress, $0.count)
        }
        try check(r, "append a byte array")
    }

    /// Opens a container; close it with ``closeContainer()``.
    ///
    /// Wraps `sd_bus_message_open_container(3)`. `contents` is the element signature for an array (`{sv}`), the
    /// member signature without parentheses or braces for a struct (`sb`) or dict entry (`sv`), and the signature of
    /// the value for a variant.
    public func openContainer(_ container: BusContainer, _ contents: String) throws(SystemdError) {
        try check(
            sd_bus_message_open_container(pointer, container.typeCode, contents),
            "open a container of type '\(contents)'"
        )
    }

    /// Closes the container opened last.
    ///
    /// Wraps `sd_bus_message_close_container(3)`.
    public func closeContainer() throws(SystemdError) {
        try check(sd_bus_message_close_container(pointer), "close a container")
    }

    /// Writes one container with `body`.
    public func appendContainer(
        _ container: BusContainer,
        _ contents: String,
        _ body: (BusMessage) throws(SystemdError) -> Void
    ) throws(SystemdError) {
        try openContainer(container, contents)
        try body(self)
        try closeContainer()
    }

    /// Appends a variant holding `value`.
    public func append<T: BusRepresentable>(variant value: T) throws(SystemdError) {
        try appendContainer(.variant, T.busSignature) { message throws(SystemdError) in
            try value.append(to: message)
        }
    }

    /// Appends an `a{sv}` property map in the order given (D-Bus keeps the order; a dictionary would not).
    public func append(properties: [(name: String, value: BusValue)]) throws(SystemdError) {
        try appendContainer(.array, "{sv}") { message throws(SystemdError) in
            for (name, value) in properties {
                try message.appendContainer(.dictEntry, "sv") { entry throws(SystemdError) in
                    try entry.append(name)
                    try entry.append(value: .variant(value))
                }
            }
        }
    }
}
