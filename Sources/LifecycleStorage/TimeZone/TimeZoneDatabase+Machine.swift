// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

import Glibc

extension TimeZoneDatabase {
    /// The value of `TZ` in this process's environment, nil when it is unset.
    public static var environmentTZ: String? {
        getenv("TZ").map { String(cString: $0) }
    }

    /// The machine's zone, chosen as glibc's `tzset()` chooses it (`time/tzset.c`, `time/tzfile.c`).
    ///
    /// - `TZ` unset: ``localtime``, else UTC when it does not exist.
    /// - `TZ` empty (or just `:`): UTC.
    /// - Otherwise, without a leading `:`: an absolute path is read as a TZif file, anything else as a zone name in
    ///   ``directory``; if no such file exists, the value is parsed as a POSIX TZ string (`EST5EDT,M3.2.0,M11.1.0`,
    ///   `UTC0`). If that fails too, UTC, with a ``MachineTimeZone/problem`` to report.
    ///
    /// - Parameter tz: the value of `TZ`, nil when unset.
    public func machineZone(tz: String?) -> MachineTimeZone {
        guard let tz else { return localtimeZone() }
        let value = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
        guard !value.isEmpty else { return MachineTimeZone(rules: .utc, origin: "TZ") }
        let fileError: TimeZoneError
        do {
            let rules = value.hasPrefix("/")
                ? try rules(atPath: value, name: zoneName(ofPath: value)) : try zone(named: value)
            return MachineTimeZone(rules: rules, origin: "TZ")
        } catch {
            fileError = error
        }
        if let rule = try? PosixTimeZone(parsing: value) {
            return MachineTimeZone(rules: TimeZoneRules(name: value, rule: rule), origin: "TZ")
        }
        return MachineTimeZone(
            rules: .utc,
            origin: "TZ",
            problem: "TZ=\"\(tz)\" is neither a time zone file (\(fileError)) nor a POSIX TZ string; using UTC"
        )
    }

    /// The zone of ``localtime``, named as systemd names it (`get_timezone()` in `src/basic/time-util.c`): by the
    /// target of the symbolic link, below the zone directory. A plain copy of a zone file has rules but no name.
    private func localtimeZone() -> MachineTimeZone {
        do {
            let rules = try rules(atPath: localtime, name: zoneName(ofPath: localtime))
            return MachineTimeZone(rules: rules, origin: localtime)
        } catch .unknownZone {
            // No /etc/localtime: UTC, like glibc and systemd.
            return MachineTimeZone(rules: .utc, origin: "default")
        } catch {
            return MachineTimeZone(rules: .utc, origin: localtime, problem: "\(error); using UTC")
        }
    }

    /// The zone name a path stands for: `Europe/Berlin` for `/etc/localtime` linking to
    /// `../usr/share/zoneinfo/Europe/Berlin`, else the path itself.
    private func zoneName(ofPath path: String) -> String {
        let target = (try? Posix.readLink(path)) ?? path
        let relative = "../" + String(directory.drop(while: { $0 == "/" }))
        for prefix in [directory + "/", relative + "/"]
        where target.hasPrefix(prefix) && target.count > prefix.count {
            return String(target.dropFirst(prefix.count))
        }
        return target
    }
}
