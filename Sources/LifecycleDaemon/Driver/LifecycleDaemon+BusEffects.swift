// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import LifecycleSystemd

extension LifecycleDaemon {
    /// Starts an effect that waits for the bus (a D-Bus call). They are performed one at a time, in the order the core
    /// asked for them, by one task on the loop's thread, and each answer is handed to the loop as an input. The loop
    /// goes on meanwhile, and the core holds whatever must wait for the answer; so no effect ever suspends the loop,
    /// and nothing can run between the halves of an input.
    ///
    /// The task starts at once (`Task.immediate`): the call goes out now, not after the inputs queued meanwhile, and
    /// the task suspends only while it waits for the reply. It may finish before `Task.immediate` returns.
    func performOnBus(_ effect: DaemonEffect) {
        busEffects.append(effect)
        guard !isPerformingOnBus else { return }
        isPerformingOnBus = true
        let worker = Task.immediate(executorPreference: thread) { await self.performBusEffects() }
        if isPerformingOnBus { busWorker = worker }
    }

    private func performBusEffects() async {
        // A few at a time: an answer is awaited before the core asks for more. Once the loop is done nothing takes
        // an answer: the rest is dropped.
        while !busEffects.isEmpty, !isLoopDone {
            if let answer = await busAnswer(busEffects.removeFirst()) { take(answer) }
        }
        isPerformingOnBus = false
        busWorker = nil
    }

    /// Performs `effect` on the bus; returns its answer, nil for an effect without one.
    private func busAnswer(_ effect: DaemonEffect) async -> DaemonInput? {
        switch effect {
        case .readVersion(let unit, let invocationID, let versionSource):
            return .versionRead(
                unit: unit, version: await version(of: unit, invocationID: invocationID, from: versionSource)
            )
        case .readRunCost(let run):
            return .runCostRead(run, await source?.runCost(of: run.unit, invocationID: run.invocationID))
        case .readTimers(let units):
            return .timersRead(await source?.timers(of: units))
        case .watch(let patterns):
            do {
                try await watch(patterns)
            } catch {
                // The first subscription failed: lifecycled cannot do its work (later ones are logged and go on).
                startFailure = error
                take(.stop)
            }
        case .publishManager:
            if let previous = manager {
                // Its calls wait for the core, which may wait for this task (a begin's version): only its name is
                // waited for here, and it answers them and closes on its own (docs/architecture.md, "Nothing waits
                // in a circle").
                manager = nil
                await previous.stepDown()
                Task(executorPreference: thread) { await previous.stop() }
            }
            manager = await publishManager(on: options.bus(core.configuration), logger: logger)
            return .managerPublished(manager != nil)
        case .prefetchVersions(let runs):
            await source?.prefetchDetails(of: runs.map { run in
                (run.unit, run.invocationID, core.configuration.versionSource(for: run.unit).detailsParts)
            })
        default:
            preconditionFailure("\(effect) does not wait for the bus")
        }
        return nil
    }
}
