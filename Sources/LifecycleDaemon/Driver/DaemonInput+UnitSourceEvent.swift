// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleSystemd

extension DaemonInput {
    /// The input a unit source's event is, nil for the events the core does not take.
    init?(_ event: UnitSourceEvent) {
        switch event {
        case .initial(let snapshots): self = .listing(snapshots)
        case .changed(let snapshot): self = .changed(snapshot)
        case .reloading(let active): self = .reloading(active)
        case .signalsLost: self = .signalsLost
        case .connectionLost(let error): self = .connectionLost("\(error)")
        case .removed(let unit): self = .unitRemoved(unit)
        case .jobRemoved(let unit, let jobID, let result, let unitResult):
            self = .jobRemoved(unit: unit, jobID: jobID, result: result, unitResult: unitResult)
        case .timerChanged(let timer): self = .timerChanged(timer)
        }
    }
}
