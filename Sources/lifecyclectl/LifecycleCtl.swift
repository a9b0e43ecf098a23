// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

@main
struct LifecycleCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lifecyclectl",
        abstract: "Inspect and drive lifecycled, the lifecycle tracker for systemd units.",
        version: "0.1.0",
        subcommands: [Replay.self]
    )
}
