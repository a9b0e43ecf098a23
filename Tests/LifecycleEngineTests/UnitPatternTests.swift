// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

import Glibc

struct UnitPatternTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var pattern: String
        var name: String
        var matches: Bool
        var testDescription: String { "\(pattern) ~ \(name) -> \(matches)" }
    }

    static let table: [Case] = [
        Case(pattern: "nginx.service", name: "nginx.service", matches: true),
        Case(pattern: "nginx.service", name: "nginx.service2", matches: false),
        Case(pattern: "nginx.service", name: "Nginx.service", matches: false),
        Case(pattern: "*.service", name: "nginx.service", matches: true),
        Case(pattern: "*.service", name: "nginx.socket", matches: false),
        Case(pattern: "*.service", name: ".service", matches: true),
        Case(pattern: "*", name: "systemd-journald.service", matches: true),
        Case(pattern: "getty@*.service", name: "getty@tty1.service", matches: true),
        Case(pattern: "getty@*.service", name: "getty@.service", matches: true),
        Case(pattern: "getty@*.service", name: "serial-getty@ttyS0.service", matches: false),
        Case(pattern: "*getty@*.service", name: "serial-getty@ttyS0.service", matches: true),
        Case(pattern: "app?.service", name: "app1.service", matches: true),
        Case(pattern: "app?.service", name: "app.service", matches: false),
        Case(pattern: "app?.service", name: "app12.service", matches: false),
        Case(pattern: "[abc]*.service", name: "b.service", matches: true),
        Case(pattern: "[abc]*.service", name: "d.service", matches: false),
        Case(pattern: "worker-[0-9].service", name: "worker-7.service", matches: true),
        Case(pattern: "worker-[0-9].service", name: "worker-x.service", matches: false),
        Case(pattern: "worker-[!0-9].service", name: "worker-x.service", matches: true),
        Case(pattern: "worker-[!0-9].service", name: "worker-7.service", matches: false),
        Case(pattern: "worker-[^0-9].service", name: "worker-x.service", matches: true),
        Case(pattern: "[]]x", name: "]x", matches: true),
        Case(pattern: "[!]]x", name: "]x", matches: false),
        Case(pattern: "[!]]x", name: "ax", matches: true),
        Case(pattern: "[a-]x", name: "-x", matches: true),
        Case(pattern: "[z-a]", name: "m", matches: false),
        Case(pattern: "[[:digit:]]*", name: "9p.service", matches: true),
        Case(pattern: "[[:digit:]]*", name: "p9.service", matches: false),
        Case(pattern: "[[:upper:][:digit:]]x", name: "Qx", matches: true),
        Case(pattern: #"dev-disk-by\x2did-*.device"#, name: #"dev-disk-by\x2did-ata.device"#, matches: true),
        Case(pattern: #"dev-disk-by\x2did-*.device"#, name: "dev-disk-byx2did-ata.device", matches: false),
        Case(pattern: #"a\*b"#, name: #"a\zzb"#, matches: true),
        Case(pattern: #"a\*b"#, name: "a*b", matches: false),
        Case(pattern: #"a\?"#, name: #"a\x"#, matches: true),
        Case(pattern: "*a*b*c*", name: "xxaxxbxxcxx", matches: true),
        Case(pattern: "*a*b*c*", name: "xxaxxcxxbxx", matches: false),
        Case(pattern: "**.service", name: "a.service", matches: true),
        Case(pattern: "a*", name: "", matches: false),
        // The literal prefix is compared as UTF-8 before any decoding.
        Case(pattern: "café-*.service", name: "café-1.service", matches: true),
        Case(pattern: "café-*.service", name: "cafe-1.service", matches: false),
        Case(pattern: "nginx.service", name: "nginx", matches: false),
    ]

    @Test("unit patterns match like systemd's fnmatch with FNM_NOESCAPE", arguments: table)
    func matching(_ example: Case) throws {
        let pattern = try UnitPattern(example.pattern)
        #expect(pattern.matches(example.name) == example.matches)
    }

    #if canImport(Glibc)
    @Test("the table agrees with glibc's fnmatch(3)", arguments: table)
    func tableAgreesWithGlibc(_ example: Case) {
        #expect((fnmatch(example.pattern, example.name, FNM_NOESCAPE) == 0) == example.matches)
    }

    @Test("random patterns agree with glibc's fnmatch(3)")
    func fuzzAgainstGlibc() throws {
        var random = SplitMix64(seed: 0x6C69_6665_6379_636C)
        let patternAlphabet = Array(#"ab.@-*?[]!^\"#)
        let nameAlphabet = Array(#"ab.@-]!^\"#)
        var checked = 0
        for _ in 0..<20_000 {
            let pattern = String(
                (0..<random.next(upTo: 8)).map { _ in patternAlphabet[random.next(upTo: patternAlphabet.count)] }
            )
            guard let compiled = try? UnitPattern(pattern) else { continue }
            let name = String(
                (0..<random.next(upTo: 7)).map { _ in nameAlphabet[random.next(upTo: nameAlphabet.count)] }
            )
            let expected = fnmatch(pattern, name, FNM_NOESCAPE) == 0
            #expect(compiled.matches(name) == expected, "pattern \(pattern) name \(name)")
            checked += 1
        }
        #expect(checked > 5_000)
    }
    #endif

    @Test(
        "invalid patterns are refused with a reason",
        arguments: [
            ("", "invalid unit pattern \"\": must not be empty"),
            ("a/b.service", "invalid unit pattern \"a/b.service\": must not contain '/'"),
            ("a\tb", "invalid unit pattern \"a\tb\": must not contain control characters"),
            (
                "foo[.service",
                "invalid unit pattern \"foo[.service\": the '[' at character 4 has no closing ']' "
                    + "(a unit name never contains '[')"
            ),
            ("[[:word:]]", "invalid unit pattern \"[[:word:]]\": unknown character class \"[:word:]\""),
            (
                "[[.a.]]",
                "invalid unit pattern \"[[.a.]]\": collating symbols and equivalence classes ('[.') are not supported"
            ),
            (
                String(repeating: "x", count: 256),
                "invalid unit pattern \"\(String(repeating: "x", count: 256))\": longer than 255 bytes, the longest "
                    + "possible unit name"
            ),
        ]
    )
    func invalid(_ text: String, _ message: String) {
        #expect(throws: ConfigurationValueError(message)) { try UnitPattern(text) }
    }

    @Test("patterns compare by their text")
    func equality() throws {
        #expect(try UnitPattern("*.service") == UnitPattern("*.service"))
        #expect(try UnitPattern("*.service") != UnitPattern("*.socket"))
        #expect(try UnitPattern("getty@*.service").description == "getty@*.service")
    }
}

/// A small deterministic generator, so a fuzz failure reproduces.
private struct SplitMix64 {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next(upTo bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
