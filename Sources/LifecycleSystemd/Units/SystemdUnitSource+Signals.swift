// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleEngine
import Logging

extension SystemdUnitSource {
    /// Handles one matched signal, on the bus thread, inside `sd_bus_process`.
    func handleSignal(_ message: BusMessage) {
        guard !isStopped else { return }
        do throws(SystemdError) {
            // Compared as C strings where they lie: a signal costs no String for its interface and member.
            if message.isSignal(SystemdNames.propertiesInterface, "PropertiesChanged") {
                try propertiesChanged(message)
            } else if message.isSignal(SystemdNames.managerInterface, "UnitRemoved") {
                let name = try message.readString()
                guard isWatched(name) else { return }
                // A reload unloads every unit and loads it again; keep what is known until the listing says.
                let removed = units.removeValue(forKey: name)
                forgetDetails(of: name)
                if isReloading { parked[name] = removed }
                deliver(.removed(name))
            } else if message.isSignal(SystemdNames.managerInterface, "JobRemoved") {
                let jobID = try UInt32(from: message)
                _ = try message.readObjectPath()
                let name = try message.readString()
                let result = try message.readString()
                guard isWatched(name) else { return }
                deliver(.jobRemoved(unit: name, jobID: jobID, result: result))
            } else if message.isSignal(SystemdNames.managerInterface, "Reloading") {
                isReloading = try Bool(from: message)
                deliver(.reloading(isReloading))
                // Unit files may have changed: every definition is read again when next needed.
                forgetDetails()
                if !isReloading {
                    // Units were re-announced; a fresh listing replaces whatever was missed or doubled.
                    requestResync()
                }
            } else if message.isSignal(SystemdNames.dbusInterface, "NameOwnerChanged") {
                try nameOwnerChanged(message)
            }
        } catch {
            logger.warning("Failed to parse a signal", metadata: [
                "member": "\(message.member ?? "?")", "path": "\(message.path ?? "?")", "error": "\(error)",
            ])
        }
    }

    /// `PropertiesChanged(s interface, a{sv} changed, as invalidated)` of a unit object.
    ///
    /// The type interface's signal (`.Service`: `Result`, `NRestarts`, `ExecMain*`) is remembered; the `.Unit` one
    /// that follows produces the snapshot.
    private func propertiesChanged(_ message: BusMessage) throws(SystemdError) {
        guard let path = message.path,
              let name = BusObjectPath(path).decode(prefix: SystemdNames.unitPathPrefix)
        else { return }
        var watched: WatchedUnit
        if let known = units[name] {
            watched = known
        } else {
            guard isWatched(name) else { return }
            // Re-announced after a reload (as by daemon-reexec): loaded again, with what was known before.
            watched = parked.removeValue(forKey: name) ?? WatchedUnit()
        }
        let kind = try message.withString { interface in
            if SystemdNames.unitInterface.withCString({ strcmp(interface, $0) }) == 0 { return InterfaceKind.unit }
            let isType = Self.typeInterfacePrefix.withCString { strncmp(interface, $0, Self.typeInterfacePrefixLength) }
            return isType == 0 ? .type : .other
        }
        switch kind {
        case .unit: try watched.unit.merge(from: message)
        case .type: try watched.type.merge(from: message)
        case .other: return
        }
        units[name] = watched
        resync?.touched.insert(name)
        if kind == .unit, let snapshot = watched.snapshot(name: name) {
            deliver(.changed(snapshot))
        }
    }

    /// Which of a unit's interfaces a `PropertiesChanged` is about.
    private enum InterfaceKind { case unit, type, other }

    /// Every type interface (`.Service`, `.Socket`, …) begins with this.
    private static let typeInterfacePrefix = "org.freedesktop.systemd1."
    private static let typeInterfacePrefixLength = typeInterfacePrefix.utf8.count

    /// `NameOwnerChanged(s name, s old_owner, s new_owner)` for `org.freedesktop.systemd1`.
    ///
    /// PID 1 re-registers on the bus after the bus daemon restarts or when it hits a bus limit, and forgets every
    /// `Subscribe()` when it does: subscribe again and resync once it has a new owner.
    private func nameOwnerChanged(_ message: BusMessage) throws(SystemdError) {
        let name = try message.readString()
        let oldOwner = try message.readString()
        let newOwner = try message.readString()
        guard name == SystemdNames.busName else { return }
        logger.notice(
            "systemd's bus name changed owner", metadata: ["old_owner": "\(oldOwner)", "new_owner": "\(newOwner)"]
        )
        if !oldOwner.isEmpty {
            deliver(.signalsLost)
        }
        if !newOwner.isEmpty {
            isFullReadNeeded = true
            forgetDetails()
            requestResync()
        }
    }
}

extension SystemdUnitSource {
    /// Whether signals about `name` are reported: an empty pattern list watches every unit, like
    /// `ListUnitsByPatterns`. A unit in `units` matched when it came, and the patterns never change.
    func isWatched(_ name: String) -> Bool {
        units[name] != nil || patterns.isEmpty || patterns.contains { $0.matches(name) }
    }
}
