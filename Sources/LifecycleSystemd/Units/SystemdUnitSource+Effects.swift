// SPDX-License-Identifier: Apache-2.0

import Glibc
import Logging

/// Performing the machine's effects. Each call's reply goes back to the machine as an input, from its completion
/// handler (inside `sd_bus_process`, so in its order relative to signals); nothing here decides anything.
extension SystemdUnitSource {
    func perform(_ effect: UnitSourceEffect) {
        switch effect {
        case .connect(let generation): connect(generation)
        case .disconnect:
            connection?.close()
            connection = nil
        case .subscribe(let id): subscribe(id)
        case .listUnits(let id, let patterns): listUnits(id, patterns: patterns)
        case .readProperties(let id, let reads): read(reads, of: id)
        case .armTimer(let timer, let delay):
            if let armed = timers[timer] { thread.cancel(armed) }
            // The thread's own timer, not Task.sleep: nothing of the source runs on Swift's global executor.
            timers[timer] = thread.schedule(after: delay) { [weak self] in
                self?.assumeIsolated { source in
                    source.timers[timer] = nil
                    source.handle(.timerFired(timer))
                }
            }
        case .cancelTimer(let timer):
            if let armed = timers.removeValue(forKey: timer) { thread.cancel(armed) }
        case .forgetDetails(let unit): forgetDetails(of: unit)
        case .deliver(let event): eventHandler(event)
        case .finishStart(let failure):
            startWaiter?.resume(returning: failure)
            startWaiter = nil
        case .log(let line):
            logger.log(level: line.level, "\(line.message)", metadata: line.metadata.mapValues { .string($0) })
        }
    }

    /// Opens a connection and installs the match rules one after the other, each before `Subscribe()` so no signal
    /// is missed.
    private func connect(_ generation: Int) {
        let connection: BusConnection
        do throws(SystemdError) {
            connection = try BusConnection(relaying: address, description: "lifecycled-units", thread: thread)
        } catch {
            handle(.connectFailed(generation: generation, error))
            return
        }
        connection.disconnectHandler = { [weak self] error in
            self?.assumeIsolated { source in source.handle(.connectionLost(generation: generation, error)) }
        }
        connection.messageFilter = { [weak self] message in
            // A view of the relay's buffer, valid during this call, which runs on the bus thread as the actor does.
            nonisolated(unsafe) let message = message
            return self?.assumeIsolated { source in source.take(message) } ?? false
        }
        self.connection = connection
        connectionGeneration = generation
        addMatches(SystemdNames.matchRules[...], generation: generation)
    }

    private func addMatches(_ rules: ArraySlice<String>, generation: Int) {
        // Closed meanwhile (its installs fail then): the machine has moved on.
        guard let connection, connectionGeneration == generation else { return }
        guard let rule = rules.first else {
            handle(.connected(generation: generation))
            return
        }
        do throws(SystemdError) {
            // The relay hands every message these rules bring to ``take(_:)`` before sd-bus sees it: the rules only
            // make the bus daemon send them.
            try connection.addMatch(rule) { _ in } installed: { [weak self] error in
                self?.assumeIsolated { source in
                    if let error {
                        source.handle(.connectFailed(generation: generation, error))
                    } else {
                        source.addMatches(rules.dropFirst(), generation: generation)
                    }
                }
            }
        } catch {
            handle(.connectFailed(generation: generation, error))
        }
    }

    /// Calls `Subscribe()`.
    ///
    /// Wraps `org.freedesktop.systemd1.Manager.Subscribe`.
    private func subscribe(_ id: Int) {
        call("Subscribe", completion: { [weak self] result in
            let error: SystemdError? = if case .failure(let error) = result { error } else { nil }
            self?.assumeIsolated { source in source.handle(.subscribed(resync: id, error)) }
        })
    }

    /// The units matching the patterns. It never loads a unit, unlike `ListUnitsByNames` or `GetUnit`.
    ///
    /// Wraps `org.freedesktop.systemd1.Manager.ListUnitsByPatterns`.
    private func listUnits(_ id: Int, patterns: [String]) {
        call("ListUnitsByPatterns") { call throws(SystemdError) in
            try call.append([String]())  // any state
            try call.append(patterns)
        } completion: { [weak self] result in
            let listed = Result { () throws(SystemdError) in try ListedUnit.readList(from: result.get()) }
            self?.assumeIsolated { source in source.handle(.listed(resync: id, listed)) }
        }
    }

    /// Calls a method of systemd's manager; a call that cannot be sent is answered as a failed one.
    private func call(
        _ member: String,
        arguments: (BusMessage) throws(SystemdError) -> Void = { _ in },
        completion: @escaping (sending Result<BusMessage, SystemdError>) -> Void
    ) {
        do throws(SystemdError) {
            guard let connection else {
                throw SystemdError(errno: ENOTCONN, operation: "call \(member)", message: "Not connected")
            }
            let call = try connection.newMethodCall(
                destination: SystemdNames.busName, path: SystemdNames.managerPath,
                interface: SystemdNames.managerInterface, member: member
            )
            try arguments(call)
            try connection.callAsync(call, completion: completion)
        } catch {
            completion(.failure(error))
        }
    }

    /// `Get`s `reads`, pipelined, and hands each reply to the machine as it arrives, then the end of the batch.
    private func read(_ reads: [PropertyRead], of id: Int) {
        lastReadBatch += 1
        let batch = lastReadBatch
        readBatches[batch] = Task(executorPreference: thread) { await self.readBatch(reads, of: id, batch: batch) }
    }

    private func readBatch(_ reads: [PropertyRead], of id: Int, batch: Int) async {
        var failure: SystemdError?
        if let connection {
            do throws(SystemdError) {
                try await get(reads, on: connection) { read, result in
                    self.handle(.propertyRead(resync: id, read, Self.answer(to: read, result)))
                }
            } catch {
                failure = error
            }
        } else {
            failure = SystemdError(errno: ENOTCONN, operation: "read unit properties", message: "Not connected")
        }
        readBatches[batch] = nil
        handle(.propertiesRead(resync: id, failure: failure))
    }

    /// One `Get` reply, parsed.
    private static func answer(
        to read: PropertyRead, _ result: sending Result<BusMessage, SystemdError>
    ) -> PropertyReadAnswer {
        switch result {
        case .failure(let error):
            return .failed(error)
        case .success(let reply):
            do throws(SystemdError) {
                if read.interface == SystemdNames.unitInterface {
                    var values = UnitProperties()
                    try values.set(read.name, from: reply)
                    return .value(.unit(values))
                }
                var values = TypeProperties()
                try values.set(read.name, from: reply)
                return .value(.type(values))
            } catch {
                return .unparsable(error)
            }
        }
    }
}
