// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage
import Testing

/// `crash_loop_crashes` and `crash_loop_minutes`: when `lifecyclectl status` calls a unit crash-looping.
struct CrashLoopConfigTests {
    static let file = "/etc/lifecycled/lifecycled.json"

    private func decode(_ text: String) throws(ConfigError) -> LifecycleConfiguration {
        try ConfigLoader.decode(try ConfigLoader.parse(Array(text.utf8), file: Self.file), file: Self.file)
    }

    @Test("both keys are read; the defaults are 3 failures in 10 minutes")
    func keys() throws {
        #expect(try decode("{}").crashLoop == CrashLoopRule(crashes: 3, minutes: 10))
        #expect(try decode(#"{"crash_loop_crashes": 5, "crash_loop_minutes": 60}"#).crashLoop
            == CrashLoopRule(crashes: 5, minutes: 60))
    }

    @Test(
        "bad values are refused, naming the key",
        arguments: [
            (#"{"crash_loop_crashes": 0}"#, "crash_loop_crashes: 0 is out of range (expected an integer from 1 to 20)"),
            (
                #"{"crash_loop_crashes": 21}"#,
                "crash_loop_crashes: 21 is out of range (expected an integer from 1 to 20)"
            ),
            (
                #"{"crash_loop_minutes": "10"}"#,
                "crash_loop_minutes: expected an integer from 1 to 153722867280912, found a string"
            ),
            (#"{"crash_loop_minute": 10}"#, "crash_loop_minute: unknown key (did you mean \"crash_loop_minutes\"?)"),
        ]
    )
    func badValues(_ text: String, _ message: String) {
        #expect(throws: ConfigError.self) { try decode(text) }
        do {
            _ = try decode(text)
        } catch {
            #expect(error.description == "\(Self.file): \(message)")
        }
    }
}
