// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine

extension LifecycleConfiguration {
    /// The zone of the local-calendar data points: `override` (a command-line choice), else `time_zone`, else the
    /// machine's. The engine never reads the machine's zone; the programs decide it here, all in the same way.
    public func localTimeZone(overriding override: TimeZone? = nil) -> TimeZone {
        override ?? timeZone.flatMap(TimeZone.init(identifier:)) ?? TimeZone.current
    }
}
