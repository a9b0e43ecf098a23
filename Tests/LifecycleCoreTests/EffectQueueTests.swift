// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import LifecycleCore

/// The order the daemon's loop (and the tests' harness) performs effects in: an answer's effects before the rest.
struct EffectQueueTests {
    private func log(_ text: String) -> DaemonEffect { .log(LogLine(.info, text)) }

    /// Performs every effect, answering those named in `answers` with their effects; the order performed.
    private func perform(_ first: [String], answers: [String: [String]]) -> [String] {
        var queue = EffectQueue(first.map(log))
        var performed: [String] = []
        while let effect = queue.next() {
            guard case .log(let line) = effect else { continue }
            performed.append(line.message)
            if let answer = answers[line.message] { queue.answered(answer.map(log)) }
        }
        return performed
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
}
