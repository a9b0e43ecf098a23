// SPDX-License-Identifier: Apache-2.0

/// Linux signal names without the `SIG` prefix, as systemd prints them in `status=9/KILL` and `signal=KILL`.
public enum SignalName {
    /// The names of signals 1 to 31 on Linux (x86, ARM and most others; signal numbers are fixed by the kernel ABI).
    private static let names = [
        "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2", "PIPE", "ALRM",
        "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF",
        "WINCH", "IO", "PWR", "SYS",
    ]

    /// The name of signal `number`, e.g. `KILL` for 9; `RTMIN+3` for a real-time signal; nil outside 1...64.
    public static func name(_ number: Int64) -> String? {
        switch number {
        case 1...31: names[Int(number) - 1]
        case 34: "RTMIN"
        case 35...63: "RTMIN+\(number - 34)"
        case 64: "RTMAX"
        default: nil
        }
    }
}
