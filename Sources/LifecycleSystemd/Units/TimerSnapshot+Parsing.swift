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

    /// Sets one property from the variant `message` is at (a `Get` reply); ignores those a snapshot does not take.
    mutating func set(_ name: String, from message: BusMessage) throws(SystemdError) {
        var reader = message
        try set(name, from: &reader)
    }

    /// Sets one property from the variant `reader` is at; ignores those a snapshot does not take.
    mutating func set(_ name: String, from reader: inout some PropertyValueReader) throws(SystemdError) {
        switch name {
        case "Unit": unit = try reader.variantString()
        case "NextElapseUSecRealtime": nextElapseRealtime = try reader.variantUInt64()
        case "NextElapseUSecMonotonic": nextElapseMonotonic = try reader.variantUInt64()
        case "LastTriggerUSec": lastTrigger = try reader.variantUInt64()
        case "LastTriggerUSecMonotonic": lastTriggerMonotonic = try reader.variantUInt64()
        case "AccuracyUSec": accuracy = try reader.variantUInt64()
        case "RandomizedDelayUSec": randomizedDelay = try reader.variantUInt64()
        case "Persistent": persistent = try reader.variantBool()
        default: break
        }
    }
}

/// The properties one timer's `PropertiesChanged` carried, parsed before the snapshot they change is looked up.
struct TimerChange {
    private var values = TimerSnapshot(name: "", unit: "")
    private var names: [String] = []

    init(changed reader: inout WireReader) throws(SystemdError) {
        try reader.readProperties(TimerSnapshot.used) { index, value throws(SystemdError) in
            let name = TimerSnapshot.used.names[index]
            try values.set(name, from: &value)
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
