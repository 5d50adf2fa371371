// swift-tools-version: 6.0
// The habits module on the Swift kit, in a package of its own as a module author writes one.
// Build it with `swift build` here, then `workbench --module .build/debug/habits-module`.
// (The workbench package builds the same sources as its `habits-module`, for its tests.)
import PackageDescription

let package = Package(
  name: "habits",
  dependencies: [.package(name: "workbench", path: "../..")],
  targets: [
    .target(name: "Habits", dependencies: [.product(name: "WorkbenchModuleKit", package: "workbench")]),
    .executableTarget(name: "habits-module", dependencies: ["Habits"]),
    .testTarget(
      name: "HabitsTests", dependencies: ["Habits", .product(name: "WorkbenchModuleTesting", package: "workbench")]),
  ],
  swiftLanguageModes: [.v6]
)
