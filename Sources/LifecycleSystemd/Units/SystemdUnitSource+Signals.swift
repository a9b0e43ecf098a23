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
        guard let decoded = message.withPath({ BusObjectPath.decode($0, prefix: Self.unitPathPrefix) }),
              let name = decoded
        else { return }
        let isFollowedTimer = followedTimers[name] != nil
        let isWatched = machine.isWatched(name)
        guard isFollowedTimer || isWatched else { return }
        let kind = try message.withString { interface in
            if SystemdNames.unitInterface.withCString({ strcmp(interface, $0) }) == 0 { return InterfaceKind.unit }
            if isFollowedTimer, TimerSnapshot.interface.withCString({ strcmp(interface, $0) }) == 0 { return .timer }
            let isType = Self.typeInterfacePrefix.withCString { strncmp(interface, $0, Self.typeInterfacePrefixLength) }
            return isType == 0 ? .type : .other
        }
        switch kind {
        case .timer: timerChanged(name, try TimerChange(changed: message))
        case .unit, .type, .other:
            guard isWatched else { return }
            switch kind {
            case .unit: handle(.propertiesChanged(unit: name, .unit(try UnitProperties(changed: message))))
            // Parsed only if what comes next reads its values (``takeHeldTypeSignals(before:)``).
            case .type: heldTypeSignals[name] = message
            case .timer, .other: return
            }
        }
    }

    /// Parses the type interface's `PropertiesChanged` held for the units whose values `input` may read, and hands
    /// them to the machine before it; drops the one of a unit whose `.Unit` signal shows no end. A unit's run brings
    /// about six pairs of signals, and only the end's type values are used (``UnitSourceMachine/typeValuesUse(of:)``).
    func takeHeldTypeSignals(before input: UnitSourceInput) {
        guard !heldTypeSignals.isEmpty else { return }
        switch machine.typeValuesUse(of: input) {
        case .none:
            // The next type signal carries every value again, and a unit removed needs none: nothing is kept.
            switch input {
            case .propertiesChanged(let name, .unit), .unitRemoved(let name): heldTypeSignals[name] = nil
            default: break
            }
        case .unit(let name):
            takeHeldTypeSignal(of: name)
        case .all:
            for name in heldTypeSignals.keys.sorted() { takeHeldTypeSignal(of: name) }
        }
    }

    private func takeHeldTypeSignal(of name: String) {
        guard let message = heldTypeSignals.removeValue(forKey: name) else { return }
        do throws(SystemdError) {
            handle(.propertiesChanged(unit: name, .type(try TypeProperties(changed: message))))
        } catch {
            logger.warning("Failed to parse a signal", metadata: [
                "member": "\(message.member ?? "?")", "path": "\(message.path ?? "?")", "error": "\(error)",
            ])
        }
    }

    /// Which of a unit's interfaces a `PropertiesChanged` is about.
    private enum InterfaceKind { case unit, type, timer, other }

    private static let unitPathPrefix = Array(SystemdNames.unitPathPrefix.utf8)

    /// Every type interface (`.Service`, `.Socket`, …) begins with this.
    private static let typeInterfacePrefix = "org.freedesktop.systemd1."
    private static let typeInterfacePrefixLength = typeInterfacePrefix.utf8.count
}
