// swift-tools-version: 6.0
// An example feature module that runs in its own process: a small to-do list.
// Build it with `swift build` here, then `workbench --module .build/debug/tasks-module`.
import PackageDescription

let package = Package(
  name: "tasks",
  dependencies: [.package(name: "workbench", path: "../..")],
  targets: [
    .target(name: "Tasks", dependencies: [.product(name: "WorkbenchModuleKit", package: "workbench")]),
    .executableTarget(name: "tasks-module", dependencies: ["Tasks"]),
    .testTarget(
      name: "TasksTests", dependencies: ["Tasks", .product(name: "WorkbenchModuleTesting", package: "workbench")]),
  ],
  swiftLanguageModes: [.v6]
)
