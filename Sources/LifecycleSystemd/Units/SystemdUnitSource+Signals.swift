// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleEngine
import Logging

/// Parsing systemd's signals into the machine's inputs.
extension SystemdUnitSource {
    /// Handles one matched signal, on the bus thread, inside `sd_bus_process`.
    func handleSignal(_ message: BusMessage) {
        guard machine.isRunning else { return }
        do throws(SystemdError) {
            // Compared as C strings where they lie: a signal costs no String for its interface and member.
            if message.isSignal(SystemdNames.propertiesInterface, "PropertiesChanged") {
                try propertiesChanged(message)
            } else if message.isSignal(SystemdNames.managerInterface, "UnitRemoved") {
                handle(.unitRemoved(try message.readString()))
            } else if message.isSignal(SystemdNames.managerInterface, "JobRemoved") {
                let jobID = try UInt32(from: message)
                _ = try message.readObjectPath()
                let name = try message.readString()
                let result = try message.readString()
                handle(.jobRemoved(unit: name, jobID: jobID, result: result))
            } else if message.isSignal(SystemdNames.managerInterface, "Reloading") {
                handle(.reloading(try Bool(from: message)))
            } else if message.isSignal(SystemdNames.dbusInterface, "NameOwnerChanged") {
                let name = try message.readString()
                let oldOwner = try message.readString()
                let newOwner = try message.readString()
                guard name == SystemdNames.busName else { return }
                handle(.nameOwnerChanged(oldOwner: oldOwner, newOwner: newOwner))
            }
        } catch {
            logger.warning("Failed to parse a signal", metadata: [
                "member": "\(message.member ?? "?")", "path": "\(message.path ?? "?")", "error": "\(error)",
            ])
        }
    }

    /// `PropertiesChanged(s interface, a{sv} changed, as invalidated)` of a unit object: the type interface's values
    /// or the `.Unit` ones, parsed only for a watched unit.
    private func propertiesChanged(_ message: BusMessage) throws(SystemdError) {
        guard let path = message.path,
              let name = BusObjectPath(path).decode(prefix: SystemdNames.unitPathPrefix)
        else { return }
        let isFollowedTimer = followedTimers[name] != nil
        guard isFollowedTimer || machine.isWatched(name) else { return }
        let kind = try message.withString { interface in
            if SystemdNames.unitInterface.withCString({ strcmp(interface, $0) }) == 0 { return InterfaceKind.unit }
            if isFollowedTimer, TimerSnapshot.interface.withCString({ strcmp(interface, $0) }) == 0 { return .timer }
            let isType = Self.typeInterfacePrefix.withCString { strncmp(interface, $0, Self.typeInterfacePrefixLength) }
            return isType == 0 ? .type : .other
        }
        switch kind {
        case .timer: timerChanged(name, try TimerChange(changed: message))
        case .unit, .type, .other:
            guard machine.isWatched(name) else { return }
            switch kind {
            case .unit: handle(.propertiesChanged(unit: name, .unit(try UnitProperties(changed: message))))
            case .type: handle(.propertiesChanged(unit: name, .type(try TypeProperties(changed: message))))
            case .timer, .other: return
            }
        }
    }

    /// Which of a unit's interfaces a `PropertiesChanged` is about.
    private enum InterfaceKind { case unit, type, timer, other }

    /// Every type interface (`.Service`, `.Socket`, …) begins with this.
    private static let typeInterfacePrefix = "org.freedesktop.systemd1."
    private static let typeInterfacePrefixLength = typeInterfacePrefix.utf8.count
}
