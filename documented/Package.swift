// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "documented",
  dependencies: [.package(path: "/work/main")],
  targets: [
    .target(name: "Documented", dependencies: [.product(name: "WorkbenchModuleKit", package: "main")]),
    .executableTarget(name: "documented-module", dependencies: ["Documented"]),
    .testTarget(name: "DocumentedTests", dependencies: ["Documented"]),
  ],
  swiftLanguageModes: [.v6]
)
