// SPDX-License-Identifier: Apache-2.0

/// The one loop that performs the core's effects, for the daemon and for the tests' harness alike: one input to the
/// core, then its effects in the order ``EffectQueue`` says, each answer given at once handed back to the core before
/// the next effect. It is synchronous: nothing can come between the halves of an input. An effect whose answer takes
/// a wait (a D-Bus call) is started by `perform`, which returns nil; its answer comes back later as an input of its
/// own, and the core holds meanwhile whatever must wait for it.
public enum DaemonLoop {
    /// Hands `input` to the core through `handle` and performs the effects with `perform`.
    ///
    /// - Returns: false once the core says the loop is done (``DaemonEffect/exit``).
    public static func run(
        _ input: DaemonInput, handle: (DaemonInput) -> [DaemonEffect], perform: (DaemonEffect) throws -> DaemonInput?
    ) rethrows -> Bool {
        var effects = EffectQueue(handle(input))
        while let effect = effects.next() {
            if effect == .exit { return false }
            if let answer = try perform(effect) { effects.answered(handle(answer)) }
        }
        return true
    }
}
