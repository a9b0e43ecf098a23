// SPDX-License-Identifier: Apache-2.0

import CSystemd

extension BusConnection {
    /// Installs a match rule; `handler` then receives every matching message on the bus thread.
    ///
    /// Wraps `sd_bus_add_match_async(3)`, not `sd_bus_add_match(3)`: the latter waits for the bus daemon's
    /// `AddMatch()` reply inside the call, which would block the bus thread for a round trip.
    ///
    /// - Parameters:
    ///   - rule: A D-Bus match rule, e.g. `type='signal',sender='org.freedesktop.systemd1',member='Reloading'`.
    ///   - handler: Called for each matching message, inside `sd_bus_process`. It must not block.
    ///   - installed: Called once with nil when the bus daemon has accepted the rule, or with the error.
    /// - Throws: ``SystemdError`` if the request cannot be queued.
    public func addMatch(
        _ rule: String,
        handler: @escaping (sending BusMessage) -> Void,
        installed: @escaping (SystemdError?) -> Void
    ) throws(SystemdError) {
        let bus = try openBus("add match \(rule)")
        let box = Unmanaged.passRetained(MatchBox(rule: rule, handler: handler, installed: installed))
        var slot: OpaquePointer?
        let r = sd_bus_add_match_async(
            bus, &slot, rule, BusCallbacks.match, BusCallbacks.matchInstalled, box.toOpaque()
        )
        do throws(SystemdError) {
            try check(r, "add match \(rule)")
        } catch {
            box.release()
            throw error
        }
        try BusCallbacks.makeFloating(slot!, destroy: BusCallbacks.releaseMatch)
    }

    /// Installs a match rule and waits until the bus daemon has accepted it.
    ///
    /// Wraps `sd_bus_add_match_async(3)`. The match lives as long as the connection.
    ///
    /// - Parameters:
    ///   - rule: A D-Bus match rule.
    ///   - handler: Called for each matching message on the bus thread, inside `sd_bus_process`.
    /// - Throws: ``SystemdError`` if the bus daemon refuses the rule or the connection breaks.
    public func addMatch(
        _ rule: String,
        isolation: isolated (any Actor) = #isolation,
        handler: @escaping (sending BusMessage) -> Void
    ) async throws(SystemdError) {
        let failure = await withCheckedContinuation(isolation: isolation) {
            (continuation: CheckedContinuation<SystemdError?, Never>) in
            do throws(SystemdError) {
                try addMatch(rule, handler: handler) { error in continuation.resume(returning: error) }
            } catch {
                continuation.resume(returning: error)
            }
        }
        if let failure { throw failure }
    }

    /// Routes method calls for an object path (or, with `includingChildren`, a whole subtree) to `handler`.
    ///
    /// Wraps `sd_bus_add_object(3)` and `sd_bus_add_fallback(3)`, the plain-callback forms that need no vtable. The
    /// handler returns true when it has replied, false to let sd-bus answer `UnknownMethod`/`UnknownObject`; an error
    /// it throws becomes the error reply (with its ``SystemdError/busErrorName`` when set).
    public func exportObject(
        path: String,
        includingChildren: Bool = false,
        handler: @escaping (BusMessage) throws(SystemdError) -> Bool
    ) throws(SystemdError) {
        let bus = try openBus("export \(path)")
        let box = Unmanaged.passRetained(ObjectBox(handler: handler))
        var slot: OpaquePointer?
        let r = includingChildren
            ? sd_bus_add_fallback(bus, &slot, path, BusCallbacks.object, box.toOpaque())
            : sd_bus_add_object(bus, &slot, path, BusCallbacks.object, box.toOpaque())
        do throws(SystemdError) {
            try check(r, "export \(path)")
        } catch {
            box.release()
            throw error
        }
        try BusCallbacks.makeFloating(slot!, destroy: BusCallbacks.releaseObject)
    }
}
