// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// Reading a timer's `org.freedesktop.systemd1.Timer` properties from bus messages: a `Get` reply or an entry of a
/// `PropertiesChanged`.
extension TimerSnapshot {
    static let interface = "org.freedesktop.systemd1.Timer"

    /// The properties a timer's snapshot takes. Only `NextElapse*`, `LastTrigger*` and `Result` change with a
    /// `PropertiesChanged`; the others are read with the timer.
    static let used = BusPropertyNames([
        "Unit", "NextElapseUSecRealtime", "NextElapseUSecMonotonic", "LastTriggerUSec", "LastTriggerUSecMonotonic",
        "AccuracyUSec", "RandomizedDelayUSec", "Persistent",
    ])

    /// Sets one property from the variant `message` is at; ignores those a snapshot does not take.
    mutating func set(_ name: String, from message: BusMessage) throws(SystemdError) {
        switch name {
        case "Unit": unit = try message.readVariant(String.self)
        case "NextElapseUSecRealtime": nextElapseRealtime = try message.readVariant(UInt64.self)
        case "NextElapseUSecMonotonic": nextElapseMonotonic = try message.readVariant(UInt64.self)
        case "LastTriggerUSec": lastTrigger = try message.readVariant(UInt64.self)
        case "LastTriggerUSecMonotonic": lastTriggerMonotonic = try message.readVariant(UInt64.self)
        case "AccuracyUSec": accuracy = try message.readVariant(UInt64.self)
        case "RandomizedDelayUSec": randomizedDelay = try message.readVariant(UInt64.self)
        case "Persistent": persistent = try message.readVariant(Bool.self)
        default: break
        }
    }
}

/// The properties one timer's `PropertiesChanged` carried, parsed before the snapshot they change is looked up.
struct TimerChange {
    private var values = TimerSnapshot(name: "", unit: "")
    private var names: [String] = []

    init(changed message: BusMessage) throws(SystemdError) {
        try message.readProperties(TimerSnapshot.used) { index, value throws(SystemdError) in
            let name = TimerSnapshot.used.names[index]
            try values.set(name, from: value)
            names.append(name)
        }
    }

    /// Sets in `timer` the properties the signal carried.
    func apply(to timer: inout TimerSnapshot) {
        for name in names {
            switch name {
            case "Unit": timer.unit = values.unit
            case "NextElapseUSecRealtime": timer.nextElapseRealtime = values.nextElapseRealtime
            case "NextElapseUSecMonotonic": timer.nextElapseMonotonic = values.nextElapseMonotonic
            case "LastTriggerUSec": timer.lastTrigger = values.lastTrigger
            case "LastTriggerUSecMonotonic": timer.lastTriggerMonotonic = values.lastTriggerMonotonic
            case "AccuracyUSec": timer.accuracy = values.accuracy
            case "RandomizedDelayUSec": timer.randomizedDelay = values.randomizedDelay
            case "Persistent": timer.persistent = values.persistent
            default: break
            }
        }
    }
}
