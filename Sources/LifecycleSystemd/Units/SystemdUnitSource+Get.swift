// SPDX-License-Identifier: Apache-2.0

/// One `org.freedesktop.DBus.Properties.Get` of a unit object.
struct PropertyRead: Sendable, Hashable {
    var unit: String
    var path: String
    var interface: String
    var name: String
}

extension SystemdUnitSource {
    /// Calls `org.freedesktop.DBus.Properties.Get` for each read, pipelined: a window is sent before any of its
    /// replies is awaited, so a handful of reads cost one round trip. `onReply` runs on the bus thread as each reply
    /// arrives, in arrival order relative to signals, with the reply positioned at its variant.
    ///
    /// The window stays below the bus daemon's `max_replies_per_connection` (128 on some system buses), with room
    /// for the version reads that may run beside a resync.
    func get(
        _ reads: [PropertyRead],
        on connection: BusConnection,
        timeout: Duration? = nil,
        onReply: @escaping (PropertyRead, sending Result<BusMessage, SystemdError>) -> Void
    ) async throws(SystemdError) {
        try await connection.callPipelined(count: reads.count, window: 96, timeout: timeout) { index throws(SystemdError) in
            let call = try connection.newMethodCall(
                destination: SystemdNames.busName, path: reads[index].path,
                interface: SystemdNames.propertiesInterface, member: "Get"
            )
            try call.append(reads[index].interface)
            try call.append(reads[index].name)
            return call
        } onReply: { index, result in
            onReply(reads[index], result)
        }
    }
}
