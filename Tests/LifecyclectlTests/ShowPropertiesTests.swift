// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleStorage
import Testing

@testable import lifecyclectl

/// `lifecyclectl show UNIT`: the state file's values, then the current data points.
struct ShowPropertiesTests {
    static let nginxText = """
        unit=nginx.service
        invocation_id=0123456789abcdef0123456789abcdef
        sequence=7
        run_ended=no
        last_failure_result=
        last_failure_exit_code=
        last_failure_exit_status=
        timestamp_last_failure=
        recent_crashes=[]
        app_version=1.25.3
        last_event=sleep
        has_launched_in_run=no
        timestamp_first_launch=2026-03-01T10:00:00.000Z
        timestamp_last_launch=2026-03-02T10:00:00.000Z
        timestamp_last_wake=2026-03-02T10:00:00.000Z
        timestamp_last_sleep=2026-03-02T11:00:00.000Z
        timestamp_update=
        count_launch=2
        count_wake=3
        count_sleep=2
        count_total_launch=2
        count_total_wake=3
        count_total_sleep=2
        count_total_crash=1
        total_seconds_awake=7200
        prior_seconds_awake=3600
        lifecycle_dayofweek_local=2
        lifecycle_hourofday_local=12
        lifecycle_dayssincelaunch=1
        lifecycle_dayssincelastwake=0
        lifecycle_firstlaunchdate=2026-03-01T10:00:00Z
        lifecycle_firstlaunchdate_MMDDYYYY=03/01/2026
        lifecycle_lastlaunchdate=2026-03-02T10:00:00Z
        lifecycle_lastwakedate=2026-03-02T10:00:00Z
        lifecycle_lastsleepdate=2026-03-02T11:00:00Z
        lifecycle_launchcount=2
        lifecycle_wakecount=3
        lifecycle_sleepcount=2
        lifecycle_totallaunchcount=2
        lifecycle_totalwakecount=3
        lifecycle_totalsleepcount=2
        lifecycle_totalcrashcount=1
        lifecycle_totalsecondsawake=7200
        lifecycle_secondsawake=3600

        """

    @Test("the key=value form of a sleeping unit is pinned")
    func text() {
        #expect(ShowProperties.text(Fixtures.nginx, now: Fixtures.now, timeZone: Fixtures.utc) == Self.nginxText)
    }

    @Test("a unit that is up counts its running period in the current data points only")
    func upUnit() {
        let text = ShowProperties.text(Fixtures.cron, now: Fixtures.now, timeZone: Fixtures.utc)
        #expect(text.contains("\ntotal_seconds_awake=90000\n"))  // stored: completed periods
        #expect(text.contains("\nlifecycle_totalsecondsawake=90180\n"))  // now: three minutes more
        #expect(text.contains("\nlifecycle_secondsawake=180\n"))
        #expect(text.contains("\nhas_launched_in_run=yes\n"))
    }

    @Test("the JSON form of a unit without events is pinned")
    func json() {
        let expected =
            #"{"app_version":null,"count_launch":0,"count_sleep":0,"count_total_crash":0,"count_total_launch":0,"#
            + #""count_total_sleep":0,"count_total_wake":0,"count_wake":0,"has_launched_in_run":false,"#
            + #""invocation_id":null,"last_event":null,"last_failure_exit_code":null,"#
            + #""last_failure_exit_status":null,"last_failure_result":null,"lifecycle_dayofweek_local":2,"#
            + #""lifecycle_hourofday_local":12,"lifecycle_launchcount":0,"lifecycle_secondsawake":0,"#
            + #""lifecycle_sleepcount":0,"lifecycle_totalcrashcount":0,"lifecycle_totallaunchcount":0,"#
            + #""lifecycle_totalsecondsawake":0,"lifecycle_totalsleepcount":0,"lifecycle_totalwakecount":0,"#
            + #""lifecycle_wakecount":0,"prior_seconds_awake":0,"recent_crashes":[],"run_ended":false,"#
            + #""sequence":0,"timestamp_first_launch":null,"timestamp_last_failure":null,"#
            + #""timestamp_last_launch":null,"timestamp_last_sleep":null,"timestamp_last_wake":null,"#
            + #""timestamp_update":null,"total_seconds_awake":0,"unit":"fresh.service"}"#
            + "\n"
        #expect(ShowProperties.json(Fixtures.fresh, now: Fixtures.now, timeZone: Fixtures.utc) == expected)
    }

    @Test("the JSON form has exactly the keys of the text form")
    func sameKeys() throws {
        let text = ShowProperties.text(Fixtures.nginx, now: Fixtures.now, timeZone: Fixtures.utc)
        let textKeys = text.split(separator: "\n").map { String($0.prefix(while: { $0 != "=" })) }
        let json = try JSONParser.parse(ShowProperties.json(Fixtures.nginx, now: Fixtures.now, timeZone: Fixtures.utc))
        #expect(json.objectValue?.keys.sorted() == textKeys.sorted())
        #expect(json.objectValue?["has_launched_in_run"] == .bool(false))
        #expect(json.objectValue?["lifecycle_dayssincelaunch"] == .int(1))
    }

    @Test("local data points follow the time zone; stored times stay in UTC")
    func timeZone() throws {
        let berlin = try TimeZoneDatabase().zone(named: "Europe/Berlin")
        let text = ShowProperties.text(Fixtures.nginx, now: Fixtures.now, timeZone: berlin)
        #expect(text.contains("\nlifecycle_hourofday_local=13\n"))
        #expect(text.contains("\ntimestamp_last_sleep=2026-03-02T11:00:00.000Z\n"))
        let kiritimati = try TimeZoneDatabase().zone(named: "Pacific/Kiritimati")  // UTC+14: already Tuesday
        let later = ShowProperties.text(Fixtures.nginx, now: Fixtures.now, timeZone: kiritimati)
        #expect(later.contains("\nlifecycle_dayofweek_local=3\n"))
        #expect(later.contains("\nlifecycle_hourofday_local=2\n"))
    }

    @Test("control characters in a value cannot break a line in two")
    func escaping() {
        var record = Fixtures.nginx
        record.state.version = "1.0\nlast_event=launch\t\u{1B}"
        let text = ShowProperties.text(record, now: Fixtures.now, timeZone: Fixtures.utc)
        #expect(text.contains("\napp_version=1.0\\nlast_event=launch\\t\\x1b\n"))
        #expect(text.split(separator: "\n").count == Self.nginxText.split(separator: "\n").count)
        #expect(ShowProperties.plain(.string("back\\slash")) == "back\\slash")
    }

    @Test("a failed unit shows its last failure, with the signal's name, and when its recent failures were")
    func failure() {
        let text = ShowProperties.text(Fixtures.killed, now: Fixtures.now, timeZone: Fixtures.utc)
        #expect(text.contains("\nrun_ended=yes\n"))
        #expect(text.contains("\nlast_failure_result=signal\nlast_failure_exit_code=killed\n"))
        #expect(text.contains("\nlast_failure_exit_status=9/KILL\ntimestamp_last_failure=2026-03-02T11:59:00.000Z\n"))
        #expect(
            text.contains(
                #"recent_crashes=["2026-03-02T11:51:00.000Z","2026-03-02T11:55:00.000Z","2026-03-02T11:59:00.000Z"]"#
            )
        )
    }
}

/// `lifecyclectl show`: the runs per version after the other keys.
struct ShowPropertiesRunsTests {
    static let versions = [
        VersionRuns(version: "1.26.0", count: 3, medianStartupSeconds: 2.04, medianCPUSeconds: 0.15000000000000002),
        VersionRuns(version: "1.25.3", count: 12, medianStartupSeconds: 1.02, medianCPUSeconds: nil),
        VersionRuns(version: nil, count: 1, medianStartupSeconds: nil, medianCPUSeconds: nil),
    ]

    @Test("three keys per version follow the data points, newest version first; unknown medians are empty")
    func text() {
        let text = ShowProperties.text(
            Fixtures.nginx, now: Fixtures.now, timeZone: Fixtures.utc, versions: Self.versions
        )
        #expect(
            text == ShowPropertiesTests.nginxText + """
                runs.1.26.0.count=3
                runs.1.26.0.median_startup_seconds=2.04
                runs.1.26.0.median_cpu_seconds=0.15
                runs.1.25.3.count=12
                runs.1.25.3.median_startup_seconds=1.02
                runs.1.25.3.median_cpu_seconds=
                runs.-.count=1
                runs.-.median_startup_seconds=
                runs.-.median_cpu_seconds=

                """
        )
    }

    @Test("the JSON form has the same keys, with numbers and null")
    func json() throws {
        let text = ShowProperties.json(
            Fixtures.nginx, now: Fixtures.now, timeZone: Fixtures.utc, versions: Self.versions
        )
        let object = try #require(try JSONParser.parse(text).objectValue)
        #expect(object["runs.1.25.3.count"] == .int(12))
        #expect(object["runs.1.25.3.median_startup_seconds"] == .double(1.02))
        #expect(object["runs.1.25.3.median_cpu_seconds"] == .null)
        #expect(object["runs.1.26.0.median_cpu_seconds"] == .double(0.15))
        let keys = ShowProperties.runProperties(Self.versions).map(\.key)
        #expect(object.keys.filter { $0.hasPrefix("runs.") }.sorted() == keys.sorted())
        #expect(keys.count == 9)
    }

    @Test("a digest version is shortened to 12 digits, unless two digests would share the key")
    func digests() {
        let digest = Fixtures.digest
        let alone = ShowProperties.runProperties([VersionRuns(version: digest, count: 1)]).map(\.key)
        #expect(alone.first == "runs.3f2a9c1b7d4e.count")
        let sibling = String(digest.prefix(12)) + String(repeating: "0", count: 52)
        let both = ShowProperties.runProperties([
            VersionRuns(version: digest, count: 1), VersionRuns(version: sibling, count: 1),
        ])
        #expect(both.map(\.key).filter { $0.hasSuffix(".count") } == ["runs.\(digest).count", "runs.\(sibling).count"])
    }

    @Test("spaces, =, \\ and control characters in a version cannot end the key early or break the line")
    func escaping() {
        let keys = ShowProperties.runProperties([VersionRuns(version: "1.0 beta=2\\x\n", count: 1)]).map(\.key)
        #expect(keys.first == #"runs.1.0\x20beta\x3d2\x5cx\x0a.count"#)
        #expect(ShowProperties.keyText("1.0-β") == "1.0-β")
    }
}
