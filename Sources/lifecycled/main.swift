// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Glibc
import LifecycleSystemd

// lifecycled runs on one thread of its own, the loop's: the command itself runs there too (a task that prefers it as
// its executor), so nothing ever runs on Swift's global executor, whose first job would arm a once-a-second
// libdispatch timer for the life of the process. The main thread only waits.
do {
    Lifecycled.loopThread = try BusThread(name: "lifecycled")
} catch {
    var line = "lifecycled: \(error)\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(1)
}
Task(executorPreference: Lifecycled.loopThread) {
    await Lifecycled.main()
    exit(0)
}
while true { pause() }
