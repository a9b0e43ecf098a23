// SPDX-License-Identifier: Apache-2.0

import Logging

/// What a ``UnitSourceMachine`` asks its driver (``SystemdUnitSource``) to do, in order. Effects with an answer (a
/// call, a timer) report back as ``UnitSourceInput``s, tagged with the resync or connection they belong to, so an
/// answer that comes after its resync was given up is recognised and dropped.
enum UnitSourceEffect: Sendable, Hashable {
    /// Open a connection, install the match rules (each before `Subscribe()`, so no signal is missed), and answer
    /// ``UnitSourceInput/connected(generation:)`` or ``UnitSourceInput/connectFailed(generation:_:)``.
    case connect(generation: Int)
    /// Close the connection; its pending calls fail, and their answers are stale by then.
    case disconnect
    /// Call `Subscribe()`; answer ``UnitSourceInput/subscribed(resync:_:)``.
    case subscribe(resync: Int)
    /// Call `ListUnitsByPatterns([], patterns)`; answer ``UnitSourceInput/listed(resync:_:)``.
    case listUnits(resync: Int, patterns: [String])
    /// `Get` each property, pipelined; answer each reply as it arrives, then the end of the batch.
    case readProperties(resync: Int, [PropertyRead])
    case armTimer(UnitSourceTimer, after: Duration)
    case cancelTimer(UnitSourceTimer)
    /// What was read of a unit's definition (every unit's, for nil) may be out of date: PID 1 loaded it again.
    case forgetDetails(of: String?)
    /// The source's one output.
    case deliver(UnitSourceEvent)
    /// The first connection is set up (nil) or failed: ``SystemdUnitSource/start()`` returns or throws.
    case finishStart(failure: SystemdError?)
    case log(UnitSourceLog)
}

/// A log message the machine asks for; metadata keys are lower_snake.
struct UnitSourceLog: Sendable, Hashable {
    var level: Logger.Level
    var message: String
    var metadata: [String: String] = [:]
}
