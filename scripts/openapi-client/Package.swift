// swift-tools-version:5.9
// A scratch client package for scripts/openapi-client.sh: the /v1 client an app would generate from
// docs/openapi.yaml with Apple's swift-openapi-generator, built to prove the document generates and compiles
// without a warning (issue 39). Copied under .build/ and filled in there; nothing here is part of Hearth.
import PackageDescription

let package = Package(
    name: "openapi-client",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
    ],
    targets: [
        .target(name: "Client", dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")]),
    ]
)
