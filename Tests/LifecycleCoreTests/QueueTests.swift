// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import LifecycleCore

/// The core's queues give back what was put in, in order, whatever mix of appends, prepends and pops.
struct QueueTests {
    /// Pops everything left.
    private func drain(_ queue: inout Queue<Int>) -> [Int] {
        var out: [Int] = []
        while let next = queue.popFirst() { out.append(next) }
        return out
    }

    @Test("appended elements come out in order; an empty queue gives nil")
    func appendsInOrder() {
        var queue = Queue([1, 2])
        queue.append(3)
        queue.append(contentsOf: [4, 5])
        #expect(queue.count == 5)
        #expect(drain(&queue) == [1, 2, 3, 4, 5])
        #expect(queue.isEmpty)
        #expect(queue.popFirst() == nil)
    }

    @Test("prepended elements come first, in their own order, also halfway through a drain")
    func prependsBeforeEverything() {
        var queue = Queue([1, 2, 3])
        #expect(queue.popFirst() == 1)
        queue.append(4)
        queue.prepend(contentsOf: [10, 11])
        #expect(queue.popFirst() == 10)
        queue.prepend(contentsOf: [20])
        #expect(drain(&queue) == [20, 11, 2, 3, 4])
    }

    @Test("a long mix of operations matches an array used the slow way", arguments: [1, 2, 3, 4, 5])
    func matchesArray(mix: UInt64) {
        var queue = Queue<Int>()
        var model: [Int] = []
        for step in 0..<2_000 {
            // A scrambled but fixed choice of operation per step (Knuth's multiplicative hash), one mix per argument.
            let scrambled = (UInt64(step) &+ mix &* 1_000) &* 2_654_435_761
            switch (scrambled >> 16) % 4 {
            case 0:
                queue.append(step)
                model.append(step)
            case 1:
                queue.prepend(contentsOf: [step, -step])
                model.insert(contentsOf: [step, -step], at: 0)
            default:
                #expect(queue.popFirst() == (model.isEmpty ? nil : model.removeFirst()))
            }
            #expect(queue.count == model.count)
        }
        #expect(drain(&queue) == model)
    }
}
