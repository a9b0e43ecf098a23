// SPDX-License-Identifier: Apache-2.0
//
// Measures the engine on its own, writes histories for measuring `lifecyclectl replay`, and measures the compaction of
// one archive shard and the look-up of a unit it does not hold.
// Usage: lifecycle-bench engine [EVENTS] | lifecycle-bench generate [EVENTS] | lifecycle-bench compaction [RECORDS]
//        | lifecycle-bench lookup [RECORDS]

import Foundation
import LifecycleEngine
import LifecycleStorage

/// A deterministic history over `units` units: each unit cycles launch, sleep, wake, sleep, custom event, with a new
/// version every 50 cycles and a crash (a launch in a new run without a sleep) every 7 cycles.
struct History: Sequence, IteratorProtocol {
    enum Step { case launch(version: String, newRun: Bool), wake, sleep, custom }

    let count: Int
    let units: Int
    private var index = 0

    init(count: Int, units: Int = 1_000) {
        self.count = count
        self.units = units
    }

    mutating func next() -> (unit: Int, time: Milliseconds, step: Step)? {
        guard index < count else { return nil }
        defer { index += 1 }
        let unit = index % units
        let round = index / units
        let cycle = round / 5
        let time = 1_772_359_200_000 + Milliseconds(round) * 90_000 + Milliseconds(unit)
        let version = "1.\(cycle / 50)"
        switch round % 5 {
        case 0: return (unit, time, .launch(version: version, newRun: true))
        case 1: return (unit, time, cycle % 7 == 6 ? .launch(version: version, newRun: true) : .sleep)
        case 2: return (unit, time, cycle % 7 == 6 ? .sleep : .wake)
        case 3: return (unit, time, cycle % 7 == 6 ? .custom : .sleep)
        default: return (unit, time, .custom)
        }
    }
}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func peakResidentMegabytes() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

/// Europe/Berlin from the system's tz database: the engine takes bytes, the caller reads the file.
func berlin() -> TimeZoneRules {
    let path = "/usr/share/zoneinfo/Europe/Berlin"
    guard let data = FileManager.default.contents(atPath: path),
        let zone = try? TimeZoneRules(tzif: [UInt8](data), name: "Europe/Berlin")
    else { fatalError("cannot read \(path)") }
    return zone
}

func benchEngine(events: Int) {
    let settings = LifecycleSettings(autotrackingEnabled: false, dataTarget: .allEvents)
    let engine = LifecycleEngine(settings: settings, calendar: LocalCalendar(timeZone: berlin()))
    var states = [UnitState](repeating: UnitState(), count: 1_000)
    var dispatched = 0
    var refused = 0
    var checksum: Int64 = 0
    let start = now()
    for (unit, time, step) in History(count: events) {
        let result: Result<Dispatch?, LifecycleError>
        switch step {
        case .launch(let version, let newRun):
            if newRun { states[unit].hasLaunchedInRun = false }
            result = engine.track(.launch, at: time, state: &states[unit], version: version)
        case .wake: result = engine.track(.wake, at: time, state: &states[unit])
        case .sleep: result = engine.track(.sleep, at: time, state: &states[unit])
        case .custom: result = .success(engine.trackCustom("custom", at: time, state: states[unit]))
        }
        switch result {
        case .success(let dispatch?):
            dispatched += 1
            checksum &+= Int64(dispatch.lifecycle?.totalWakeCount ?? 0)
        case .success(nil): break
        case .failure: refused += 1
        }
    }
    let seconds = now() - start
    print("engine: \(events) events in \(String(format: "%.3f", seconds)) s = \(Int(Double(events) / seconds)) events/s "
        + "(\(dispatched) dispatched, \(refused) refused, checksum \(checksum)); peak RSS \(String(format: "%.1f", peakResidentMegabytes())) MB")
}

func generate(events: Int) {
    var out = JSONWriter(reservingCapacity: 1 << 17)
    for (unit, time, step) in History(count: events) {
        out.raw("{\"unit\":\"bench-")
        out.integer(Int64(unit))
        out.raw(".service\",\"time\":")
        out.integer(time)
        switch step {
        case .launch(let version, let newRun):
            out.raw(",\"event\":\"launch\",\"version\":")
            out.string(version)
            if newRun { out.raw(",\"new_process\":true") }
        case .wake: out.raw(",\"event\":\"wake\"")
        case .sleep: out.raw(",\"event\":\"sleep\"")
        case .custom: out.raw(",\"event\":\"custom\",\"data\":{\"k\":\"v\"}")
        }
        out.raw("}\n")
        if out.bytes.count > 1 << 16 {
            FileHandle.standardOutput.write(Data(out.bytes))
            out.removeAll()
        }
    }
    FileHandle.standardOutput.write(Data(out.bytes))
}

/// One archive shard of `records` records, half of them last active before the cut-off, compacted (the best of five).
func benchCompaction(records: Int) {
    let shard = archiveShard(records: records)
    var best = Double.infinity
    var kept = 0
    for _ in 0..<5 {
        let start = now()
        kept = UnitArchive.compacted(shard, expiredBefore: Milliseconds(records / 2), journalHeldSince: nil).count
        best = min(best, now() - start)
    }
    let milliseconds = String(format: "%.1f", best * 1_000)
    print("compaction: \(records) records, \(shard.count) bytes -> \(kept) bytes in \(milliseconds) ms")
}

/// The archive's answer for a unit it has never held (every new name of a churn asks it), its shard holding `records`
/// records: the median of 200 look-ups, each reading from the page cache as lifecycled does; first with the shard
/// alone (as an older lifecycled wrote it), then with its index of names, which one append makes.
func benchLookup(records: Int) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifecycle-bench-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let archive = UnitArchive(stateDirectory: directory)
    let missing = "run-u-missing.service"
    try? FileManager.default.createDirectory(atPath: archive.directory, withIntermediateDirectories: true)
    let written = FileManager.default.createFile(
        atPath: archive.shardPath(of: missing), contents: Data(archiveShard(records: records))
    )
    precondition(written, "could not write the shard in \(directory)")
    func median() -> String {
        var times: [Double] = []
        for _ in 0..<200 {
            let start = now()
            let found = (try? archive.records(of: [missing])) ?? []
            times.append(now() - start)
            precondition(found.isEmpty)
        }
        return String(format: "%.1f", times.sorted()[times.count / 2] * 1e6)
    }
    let whole = median()
    // One more unit of the same shard, archived: the append makes the index from the whole shard.
    let shard = archive.shardPath(of: missing)
    let neighbour = (0...).lazy.map { "run-v\($0).service" }.first { archive.shardPath(of: $0) == shard }!
    let appendStart = now()
    let record = UnitRecord(unit: neighbour, state: UnitState(), invocationID: nil, runEnded: true, sequence: 1)
    try! archive.append([record])
    let appendMilliseconds = String(format: "%.1f", (now() - appendStart) * 1e3)
    let indexed = median()
    let size = (try? FileManager.default.attributesOfItem(atPath: archive.shardPath(of: missing))[.size] as? Int) ?? 0
    print("lookup: a unit not in a shard of \(records) records (\(size) bytes): \(whole) µs read whole, \(indexed) µs"
        + " with its index (made by an append in \(appendMilliseconds) ms)")
}

/// The lines of an archive shard of `records` records of units whose names never repeat.
func archiveShard(records: Int) -> [UInt8] {
    var shard: [UInt8] = []
    for index in 0..<records {
        var state = UnitState()
        state.lastSleep = Milliseconds(index)
        state.totalLaunchCount = index
        let record = UnitRecord(
            unit: "run-u\(index).service", state: state, invocationID: String(repeating: "a", count: 32), runEnded: true,
            sequence: UInt64(index)
        )
        var writer = JSONLayoutWriter(.compact)
        record.write(to: &writer)
        shard += writer.bytes + [UInt8(ascii: "\n")]
    }
    return shard
}

let arguments = CommandLine.arguments.dropFirst()
let events = arguments.dropFirst().first.flatMap(Int.init) ?? 1_000_000
switch arguments.first {
case "engine": benchEngine(events: events)
case "generate": generate(events: events)
case "compaction": benchCompaction(records: arguments.dropFirst().first.flatMap(Int.init) ?? 1_000)
case "lookup": benchLookup(records: arguments.dropFirst().first.flatMap(Int.init) ?? 1_000)
default:
    let usage = "usage: lifecycle-bench engine|generate [EVENTS] | compaction|lookup [RECORDS]\n"
    FileHandle.standardError.write(Data(usage.utf8))
    exit(64)
}
