// SPDX-License-Identifier: Apache-2.0

import LifecycleSystemd
import Testing

struct JournalFieldNameTests {
    @Test("maps keys onto names journald keeps", arguments: [
        ("lifecycle_dayssincelaunch", "LIFECYCLE_DAYSSINCELAUNCH"),
        ("MESSAGE", "MESSAGE"),
        ("http.status-code", "HTTP_STATUS_CODE"),
        ("MiXeD Case", "MIXED_CASE"),
        ("_private", "PRIVATE"),
        ("__", "FIELD"),
        ("", "FIELD"),
        ("1st", "FIELD_1ST"),
        ("_9lives", "FIELD_9LIVES"),
        ("größe", "GR__E"),
        ("emoji🙂", "EMOJI_"),
        ("tab\tnew\nline", "TAB_NEW_LINE"),
        (String(repeating: "a", count: 80), String(repeating: "A", count: 64)),
        ("9" + String(repeating: "b", count: 70), "FIELD_9" + String(repeating: "B", count: 57)),
    ])
    func sanitize(key: String, expected: String) {
        let name = JournalFieldName.sanitize(key)
        #expect(name == expected)
        #expect(JournalFieldName.isValid(name))
    }

    @Test("accepts exactly what journald accepts", arguments: [
        ("MESSAGE", true),
        ("LIFECYCLE_UNIT", true),
        ("A1_", true),
        (String(repeating: "X", count: 64), true),
        (String(repeating: "X", count: 65), false),
        ("", false),
        ("_PID", false),
        ("1DIGIT", false),
        ("lowercase", false),
        ("MiXeD", false),
        ("BAD-DASH", false),
        ("SP ACE", false),
        ("ÄRGER", false),
    ])
    func validity(name: String, isValid: Bool) {
        #expect(JournalFieldName.isValid(name) == isValid)
    }
}
