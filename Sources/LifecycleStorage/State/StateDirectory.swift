// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// The one rule for where the state files are, shared by lifecycled and lifecyclectl so they always agree: the
/// `--state-directory` option, else the configuration's `state_directory` (default `/var/lib/lifecycled`).
///
/// `$STATE_DIRECTORY` is deliberately not part of it: lifecyclectl never has it, so a daemon that followed it could
/// write where lifecyclectl does not look. The shipped unit's `StateDirectory=lifecycled` creates the default
/// directory; another `state_directory` needs a `ReadWritePaths=` drop-in (docs/configuration.md).
public enum StateDirectory {
    /// The state directory for a command line's `option` and the loaded `configuration`.
    public static func resolve(option: String?, configuration: LifecycleConfiguration) -> String {
        option ?? configuration.stateDirectory
    }
}
