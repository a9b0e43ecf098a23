// SPDX-License-Identifier: Apache-2.0

import LifecycleSystemd
import Testing

struct UnitPatternsTests {
    @Test("matches like ListUnitsByPatterns (fnmatch, FNM_NOESCAPE)", arguments: [
        (["nginx.service"], "nginx.service", true),
        (["nginx.service"], "nginx.socket", false),
        (["*.service"], "getty@tty1.service", true),
        (["*.service"], "dbus.socket", false),
        (["getty@*.service"], "getty@tty1.service", true),
        (["getty@*.service"], "serial-getty@ttyS0.service", false),
        (["probe-?.service"], "probe-a.service", true),
        (["probe-[ab].service"], "probe-c.service", false),
        ([#"dev-disk-by\x2duuid-1.device"#], #"dev-disk-by\x2duuid-1.device"#, true),
        ([#"dev-disk-by\x2duuid-1.device"#], "dev-disk-byx2duuid-1.device", false),
        (["a.service", "b.*"], "b.timer", true),
        ([], "anything.mount", true),
    ])
    func matching(patterns: [String], name: String, matches: Bool) {
        #expect(UnitPatterns(patterns).matches(name) == matches)
    }
}
