// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import LifecycleCore

/// The order the daemon's loop (``DaemonLoop``, which the tests' harness runs too) performs effects in: an answer's
/// effects before the rest; the loop ends at `exit`.
struct EffectQueueTests {
    private func log(_ text: String) -> DaemonEffect { .log(LogLine(.info, text)) }

    /// Runs the loop on `.start`, whose effects are `first`; each effect named in `answers` is answered (as a version
    /// read of its name) and the answer's effects are those. The effects performed, in order, and whether the loop
    /// goes on.
    private func run(_ first: [DaemonEffect], answers: [String: [DaemonEffect]]) -> (performed: [String], goesOn: Bool) {
        var performed: [String] = []
        let goesOn = DaemonLoop.run(.start, handle: { input in
            switch input {
            case .start: first
            case .versionRead(let name, _): answers[name] ?? []
            default: []
            }
        }) { effect in
            guard case .log(let line) = effect else { return nil }
            performed.append(line.message)
            return answers[line.message] == nil ? nil : .versionRead(unit: line.message, version: nil)
        }
        return (performed, goesOn)
    }

    private func perform(_ first: [String], answers: [String: [String]]) -> [String] {
        run(first.map(log), answers: answers.mapValues { $0.map(log) }).performed
    }

    @Test("effects run in order; an answer's effects come before the rest, and their answers' before theirs", arguments: [
        ([String: [String]](), ["a", "b", "c"]),
        (["a": ["x", "y"]], ["a", "x", "y", "b", "c"]),
        (["a": ["x", "y"], "x": ["z"]], ["a", "x", "z", "y", "b", "c"]),
        (["c": ["x"], "x": []], ["a", "b", "c", "x"]),
    ])
    func order(answers: [String: [String]], expected: [String]) {
        #expect(perform(["a", "b", "c"], answers: answers) == expected)
    }

    @Test("an answer after the last effect keeps the loop going until its effects are done")
    func answersAtTheEnd() {
        #expect(perform(["a"], answers: ["a": ["b"], "b": ["c"]]) == ["a", "b", "c"])
        #expect(perform([], answers: [:]).isEmpty)
    }

    @Test("exit ends the loop: nothing after it is performed, an answer's exit included")
    func exit() {
        #expect(run([log("a"), .exit, log("b")], answers: [:]) == (["a"], false))
        #expect(run([log("a"), log("b")], answers: ["a": [.exit]]) == (["a"], false))
        #expect(run([log("a")], answers: [:]) == (["a"], true))
    }
}
