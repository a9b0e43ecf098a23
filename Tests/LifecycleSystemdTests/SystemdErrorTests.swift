// SPDX-License-Identifier: Apache-2.0

import LifecycleSystemd
import Testing

struct SystemdErrorTests {
    @Test("describes itself the way systemd does")
    func description() {
        let plain = SystemdError(errno: -2, operation: "open the journal")
        #expect(plain.errno == 2)
        #expect(plain.description == "Failed to open the journal: No such file or directory")
        let bus = SystemdError(
            errno: 113, operation: "call GetId",
            busErrorName: "org.freedesktop.DBus.Error.ServiceUnknown", message: "The name is not activatable"
        )
        #expect(bus.description == "Failed to call GetId: The name is not activatable")
        #expect(bus.hasBusError("org.freedesktop.DBus.Error.ServiceUnknown"))
    }
}
