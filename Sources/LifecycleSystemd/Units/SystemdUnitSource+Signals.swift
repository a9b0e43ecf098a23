// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleEngine
import Logging

/// Parsing systemd's signals into the machine's inputs. They are read where they lie in the bus relay's buffer
/// (docs/architecture.md, "The bus relay"), before sd-bus would see them.
extension SystemdUnitSource {
    /// Takes one of the signals the match rules ask for (``SystemdNames/matchRules``), on the bus thread; returns
    /// false for any other message, which sd-bus then processes.
    func take(_ message: WireMessage) -> Bool {
        guard let kind = Self.watchedSignal(message) else { return false }
        guard machine.isRunning else { return true }
        do throws(SystemdError) {
            switch kind {
            case .propertiesChanged:
                try propertiesChanged(message)
            case .unitRemoved:
                var body = try message.body("so")
                handle(.unitRemoved(try body.string()))
            case .jobRemoved:
                var body = try message.body("uoss")
                let jobID = try body.uint32()
                _ = try body.stringBytes()
                let name = try body.string()
                let result = try body.string()
                handle(.jobRemoved(unit: name, jobID: jobID, result: result))
            case .reloading:
                var body = try message.body("b")
                handle(.reloading(try body.bool()))
            case .nameOwnerChanged:
                var body = try message.body("sss")
                let name = try body.string()
                let oldOwner = try body.string()
                let newOwner = try body.string()
                guard name == SystemdNames.busName else { return true }
                handle(.nameOwnerChanged(oldOwner: oldOwner, newOwner: newOwner))
            }
        } catch {
            logger.warning("Failed to parse a signal", metadata: [
                "member": "\(message.member.map { String(decoding: $0, as: UTF8.self) } ?? "?")",
                "path": "\(message.path.map { String(decoding: $0, as: UTF8.self) } ?? "?")", "error": "\(error)",
            ])
        }
        return true
    }

    /// `PropertiesChanged(s interface, a{sv} changed, as invalidated)` of a unit object: the type interface's values
    /// or the `.Unit` ones, parsed only for a watched unit.
    private func propertiesChanged(_ message: WireMessage) throws(SystemdError) {
        guard let signalled = message.withPath({ signalUnit(at: $0) }), let unit = signalled else { return }
        let name = unit.name
        let isFollowedTimer = followedTimers[name] != nil
        let isWatched = unit.matchesPatterns || machine.isLoaded(name)
        guard isFollowedTimer || isWatched else { return }
        var body = try message.body("sa{sv}as")
        let kind = try body.withCString { interface in
            if SystemdNames.unitInterface.withCString({ strcmp(interface, $0) }) == 0 { return InterfaceKind.unit }
            if isFollowedTimer, TimerSnapshot.interface.withCString({ strcmp(interface, $0) }) == 0 { return .timer }
            let isType = Self.typeInterfacePrefix.withCString { strncmp(interface, $0, Self.typeInterfacePrefixLength) }
            return isType == 0 ? .type : .other
        }
        switch kind {
        case .timer: timerChanged(name, try TimerChange(changed: &body))
        case .unit, .type, .other:
            guard isWatched else { return }
            switch kind {
            case .unit: handle(.propertiesChanged(unit: name, .unit(try UnitProperties(changed: &body))))
            // Handed on only if what comes next reads its values (``takeHeldTypeSignals(before:)``).
            case .type: heldTypeSignals[name] = try TypeProperties(changed: &body)
            case .timer, .other: return
            }
        }
    }

    /// The unit whose object `path` is, and whether its name matches the patterns; nil for a path that is not a
    /// unit's. PID 1 sends each change of a unit as a pair of signals (its `.Unit` interface's, then its type's), and
    /// each decoded the path and matched the name with the patterns again: the last path's answer is kept, and holds
    /// for good, since the patterns never change (docs/PERFORMANCE.md, "Fewer instructions per run, seventh round").
    private func signalUnit(at path: UnsafePointer<CChar>) -> SignalUnit? {
        let length = strlen(path)
        if let last = lastSignalUnit, last.path.count == length, memcmp(last.path, path, length) == 0 { return last }
        guard let name = BusObjectPath.decode(path, prefix: Self.unitPathPrefix) else { return nil }
        let unit = SignalUnit(
            path: Array(UnsafeRawBufferPointer(start: path, count: length)), name: name,
            matchesPatterns: machine.matchesPatterns(name)
        )
        lastSignalUnit = unit
        return unit
    }

    /// Hands the type interface's values held for the units whose values `input` may read to the machine before it;
    /// drops those of a unit whose `.Unit` signal shows no end. A unit's run brings about six pairs of signals, and
    /// only the end's type values are used (``UnitSourceMachine/typeValuesUse(of:)``).
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
        guard let values = heldTypeSignals.removeValue(forKey: name) else { return }
        handle(.propertiesChanged(unit: name, .type(values)))
    }

    /// The signals the match rules ask for.
    private enum WatchedSignal { case propertiesChanged, unitRemoved, jobRemoved, reloading, nameOwnerChanged }

    /// Which of the watched signals `message` is; nil for any other message.
    private static func watchedSignal(_ message: WireMessage) -> WatchedSignal? {
        guard message.type == WireMessage.signalType else { return nil }
        if message.isSignal(SystemdNames.propertiesInterface, "PropertiesChanged") { return .propertiesChanged }
        let manager = SystemdNames.managerInterface, path = SystemdNames.managerPath
        if message.isSignal(manager, "UnitRemoved", path: path) { return .unitRemoved }
        if message.isSignal(manager, "JobRemoved", path: path) { return .jobRemoved }
        if message.isSignal(manager, "Reloading", path: path) { return .reloading }
        if message.isSignal(SystemdNames.dbusInterface, "NameOwnerChanged", path: SystemdNames.dbusPath) {
            return .nameOwnerChanged
        }
        return nil
    }

    /// Which of a unit's interfaces a `PropertiesChanged` is about.
    private enum InterfaceKind { case unit, type, timer, other }

    private static let unitPathPrefix = Array(SystemdNames.unitPathPrefix.utf8)

    /// Every type interface (`.Service`, `.Socket`, …) begins with this.
    private static let typeInterfacePrefix = "org.freedesktop.systemd1."
    private static let typeInterfacePrefixLength = typeInterfacePrefix.utf8.count
}

/// The unit a signal's object path names, as ``SystemdUnitSource`` last decoded it.
struct SignalUnit: Sendable {
    let path: [UInt8]
    let name: String
    let matchesPatterns: Bool
}
