// SPDX-License-Identifier: Apache-2.0

/// Digests of files by ``FileIdentity``, bounded: when full, the oldest entry makes room (first in, first out).
///
/// First in, first out rather than least recently used because a miss costs only one more read of a file, and
/// FIFO needs no bookkeeping on a hit, which is the common case (thousands of units share a few executables).
struct DigestCache: Sendable {
    let capacity: Int
    private var digests: [FileIdentity: String] = [:]
    /// Identities in insertion order, used as a ring once the cache is full.
    private var order: [FileIdentity] = []
    private var oldest = 0

    init(capacity: Int) {
        precondition(capacity >= 0, "A cache capacity cannot be negative")
        self.capacity = capacity
    }

    var count: Int { digests.count }

    func digest(for identity: FileIdentity) -> String? {
        digests[identity]
    }

    mutating func insert(_ digest: String, for identity: FileIdentity) {
        guard capacity > 0, digests.updateValue(digest, forKey: identity) == nil else { return }
        if order.count < capacity {
            order.append(identity)
        } else {
            digests.removeValue(forKey: order[oldest])
            order[oldest] = identity
            oldest = (oldest + 1) % capacity
        }
    }
}
