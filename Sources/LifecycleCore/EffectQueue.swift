// SPDX-License-Identifier: Apache-2.0

/// The order in which a loop performs the core's effects, one rule for the daemon's loop and the tests' harness: the
/// effects of one input in order; when an effect is answered, the effects of the answer come before the rest, so that
/// what an answer leads to is done before anything that came after the effect.
///
/// A performed effect is dropped at once: a long recovery is one input whose answers go on for thousands of rounds,
/// and each round's records and dispatches must not stay alive until it ends.
public struct EffectQueue: Sendable {
    private var queue: Queue<DaemonEffect>

    /// The effects of one input.
    public init(_ effects: [DaemonEffect]) {
        queue = Queue(effects)
    }

    /// The next effect to perform; nil when every one was.
    public mutating func next() -> DaemonEffect? {
        queue.popFirst()
    }

    /// The effects the core gave for the answer to the effect performed last: they come next.
    public mutating func answered(_ effects: [DaemonEffect]) {
        queue.prepend(contentsOf: effects)
    }
}
