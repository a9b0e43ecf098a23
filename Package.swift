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
        .library(name: "LifecycleEngine", targets: ["LifecycleEngine"]),
    ],
    targets: [
        // Pure: the reference lifecycle semantics, the autotracker, JSON and replay. No I/O, no clock.
        .target(
            name: "LifecycleEngine",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LifecycleEngineTests",
            dependencies: ["LifecycleEngine"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
