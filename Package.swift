// swift-tools-version:6.2
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "lifecycled",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "lifecycled", targets: ["lifecycled"]),
        .executable(name: "lifecyclectl", targets: ["lifecyclectl"]),
        .library(name: "LifecycleEngine", targets: ["LifecycleEngine"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // Pure: the reference lifecycle semantics, the autotracker, JSON and replay. No I/O, no clock.
        .target(
            name: "LifecycleEngine",
            swiftSettings: strictSettings
        ),
        // Pure: the dispatch schema both binaries share: every LIFECYCLE_* journal field, written and read back, the
        // journal matches of lifecycled's entries, and the rule for where a unit's last run stands.
        .target(
            name: "LifecycleSchema",
            dependencies: ["LifecycleEngine"],
            swiftSettings: strictSettings
        ),
        // Files: configuration loading and per-unit state files.
        .target(
            name: "LifecycleStorage",
            dependencies: ["LifecycleEngine", "LifecycleSchema"],
            swiftSettings: strictSettings
        ),
        // Pure: the daemon's core, its decisions as inputs to effects (docs/architecture.md). No I/O, no clock, no
        // libsystemd: the compiler holds it to its three dependencies.
        .target(
            name: "LifecycleCore",
            dependencies: ["LifecycleEngine", "LifecycleSchema", "LifecycleStorage"],
            swiftSettings: strictSettings
        ),
        // The daemon's services and wiring, in a library so that tests can drive it in-process.
        .target(
            name: "LifecycleDaemon",
            dependencies: [
                "LifecycleCore",
                "LifecycleEngine",
                "LifecycleSchema",
                "LifecycleStorage",
                "LifecycleSystemd",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "lifecycled",
            dependencies: [
                "LifecycleDaemon",
                "LifecycleEngine",
                "LifecycleStorage",
                "LifecycleSystemd",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "lifecyclectl",
            dependencies: [
                "LifecycleEngine",
                "LifecycleSchema",
                "LifecycleStorage",
                "LifecycleSystemd",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "lifecycle-bench",
            dependencies: ["LifecycleEngine", "LifecycleStorage"],
            path: "Benchmarks/lifecycle-bench",
            swiftSettings: strictSettings
        ),
        // Helpers shared by the test targets (a private dbus-daemon).
        .target(
            name: "LifecycleTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LifecycleEngineTests",
            dependencies: ["LifecycleEngine"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LifecycleSchemaTests",
            dependencies: ["LifecycleSchema", "LifecycleEngine"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LifecycleStorageTests",
            dependencies: ["LifecycleStorage", "LifecycleSchema"],
            swiftSettings: strictSettings
        ),
        // libsystemd's headers; LifecycleSystemd is the only module that imports it.
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // sd-bus (unit source), sd-journal and sd-daemon adapters.
        .target(
            name: "LifecycleSystemd",
            dependencies: [
                "LifecycleEngine",
                "CSystemd",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LifecycleSystemdTests",
            dependencies: [
                "LifecycleSystemd",
                "LifecycleEngine",
                "LifecycleTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LifecycleCoreTests",
            dependencies: ["LifecycleCore", "LifecycleEngine", "LifecycleSchema", "LifecycleStorage"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LifecycleDaemonTests",
            dependencies: [
                "LifecycleCore", "LifecycleDaemon", "LifecycleSchema", "LifecycleSystemd", "LifecycleTestSupport",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LifecyclectlTests",
            dependencies: [
                "lifecyclectl",
                "LifecycleEngine",
                "LifecycleSchema",
                "LifecycleStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
