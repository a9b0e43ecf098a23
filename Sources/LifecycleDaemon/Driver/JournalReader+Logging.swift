// SPDX-License-Identifier: Apache-2.0

import LifecycleSystemd
import Logging

extension JournalReader {
    /// A reader of the local journal that logs what a damaged file made a read leave out (once per read), so that no
    /// read of lifecycled's passes over damage in silence.
    init(logging logger: Logger) {
        self.init(damaged: { damage in logger.warning("Read the journal past damage: \(damage)") })
    }
}
