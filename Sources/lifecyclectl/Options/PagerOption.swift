// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// `--no-pager`, accepted by the reading commands out of systemctl habit: lifecyclectl never pipes its output into a
/// pager, so there is nothing to turn off.
struct PagerOption: ParsableArguments {
    @Flag(name: .long, help: "Accepted as with systemctl; lifecyclectl never pipes its output into a pager.")
    var noPager = false
}
