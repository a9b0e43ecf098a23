// SPDX-License-Identifier: Apache-2.0

import LifecycleSystemd
import Testing

struct JournalFieldNameTests {
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
