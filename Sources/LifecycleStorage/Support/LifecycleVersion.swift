// SPDX-License-Identifier: Apache-2.0

/// lifecycled's version, said once for both programs' `--version` and for `lifecycled_build_info`.
public enum LifecycleVersion {
    public static let current = "0.1.0"
}
