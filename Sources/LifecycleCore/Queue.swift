// SPDX-License-Identifier: Apache-2.0

/// First in, first out, each operation O(1) amortized: the core's work and deferred inputs. An `Array` taken from the
/// front moves every element behind on each `removeFirst()`, and a long history queues tens of thousands of
/// transitions at once: 40,000 of them (20,000 recovered runs) cost 8 s of copying before READY.
///
/// Two stacks: `back` takes what is appended, `front` holds what comes next in reverse, so that the next element is
/// always popped from an array's end (and released there).
struct Queue<Element: Sendable>: Sendable {
    private var front: [Element] = []
    private var back: [Element] = []

    init() {}

    init(_ elements: some Sequence<Element>) {
        back = Array(elements)
    }

    var isEmpty: Bool { front.isEmpty && back.isEmpty }

    var count: Int { front.count + back.count }

    mutating func append(_ element: Element) {
        back.append(element)
    }

    mutating func append(contentsOf elements: some Sequence<Element>) {
        back.append(contentsOf: elements)
    }

    /// Puts `elements`, in their order, before everything queued.
    mutating func prepend(contentsOf elements: some BidirectionalCollection<Element>) {
        front.append(contentsOf: elements.reversed())
    }

    /// Whether an element queued satisfies `predicate`: O(n), for a queue expected short.
    func contains(where predicate: (Element) -> Bool) -> Bool {
        front.contains(where: predicate) || back.contains(where: predicate)
    }

    mutating func popFirst() -> Element? {
        if front.isEmpty {
            guard !back.isEmpty else { return nil }
            front = back.reversed()
            back = []
        }
        return front.popLast()
    }
}
