// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema

extension RunState {
    /// The state of `record`; nil before its first event.
    public init?(record: UnitRecord) {
        self.init(lastEvent: record.state.lastEvent, runEnded: record.runEnded)
    }
}
