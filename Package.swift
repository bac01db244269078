// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Intake",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "intake", targets: ["intake"]),
        .library(name: "IntakeCore", targets: ["IntakeCore"]),
        .library(name: "IntakeStore", targets: ["IntakeStore"]),
        .library(name: "IntakeForm", targets: ["IntakeForm"]),
        .library(name: "IntakeFieldwork", targets: ["IntakeFieldwork"]),
        .library(name: "IntakeService", targets: ["IntakeService"]),
        .library(name: "IntakeServer", targets: ["IntakeServer"]),
        .library(name: "IntakeSQLite", targets: ["IntakeSQLite"]),
        .library(name: "IntakePostgres", targets: ["IntakePostgres"]),
        .library(name: "IntakeDeployment", targets: ["IntakeDeployment"]),
        .library(name: "IntakeStoreTesting", targets: ["IntakeStoreTesting"]),
        .library(name: "IntakeClient", targets: ["IntakeClient"]),
        .library(name: "IntakeExport", targets: ["IntakeExport"]),
        .library(name: "IntakeConsole", targets: ["IntakeConsole"]),
        .library(name: "IntakeXLSForm", targets: ["IntakeXLSForm"]),
        .library(name: "IntakeODK", targets: ["IntakeODK"]),
        .library(name: "IntakeREDCap", targets: ["IntakeREDCap"]),
        .library(name: "IntakeFHIR", targets: ["IntakeFHIR"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // Questionnaire format, PatientResponse and its codec, validation. Foundation, and
        // swift-crypto for SHA-256 (questionnaire versions, record content hashes).
        .target(name: "IntakeCore", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // Local drafts and the outbound queue in SQLite, sealed with AES-GCM.
        // The kernel's keyring (keyrings(7)): an unlocked store key kept between commands, never on disk.
        .target(name: "CKeyring"),
        .target(
            name: "IntakeStore",
            dependencies: [
                "IntakeCore", "CKeyring",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The system's libcurl (OpenSSL flavour), the client's one transport.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // Talking to the server over HTTP(S) through libcurl: records, batches, lookup, sync,
        // the inbox and its event stream, questionnaires, export downloads.
        .target(name: "IntakeClient", dependencies: ["IntakeCore", "CCurl", .product(name: "Crypto", package: "swift-crypto")]),
        // The terminal itself: secret prompts Ctrl-C can leave, a line editor, and text made
        // safe to print (Foundation and the C library only).
        .target(name: "IntakeTerminal"),
        // The line-based form a field worker fills in a terminal.
        // Its drafts are saved through the closure the caller hands it, so it needs no store.
        .target(name: "IntakeForm", dependencies: ["IntakeCore", "IntakeTerminal"]),
        // What a field worker does at the command line, as library code tests reach: filling
        // (picking a draft), looking a patient up, flushing the queue with progress.
        .target(name: "IntakeFieldwork", dependencies: ["IntakeCore", "IntakeStore", "IntakeClient", "IntakeForm", "IntakeTerminal"]),
        // Research exports: wide and long CSV, codebook, JSON Lines, FHIR R4, Frictionless data package,
        // and native SPSS (.sav), Stata (.dta) and Excel (.xlsx, through ZIPFoundation) files.
        .target(
            name: "IntakeExport",
            dependencies: [
                "IntakeCore", .product(name: "Crypto", package: "swift-crypto"), .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        // The domain, apart from HTTP and from where it stores: accounts, access, audit, devices,
        // exports, patients, questionnaires, records, reviews, teams, webhooks, their rules, the
        // store protocols the stores below implement, and `ServiceError`. No Hummingbird module
        // but hummingbird-auth's bcrypt, for passwords (checked by scripts/check-imports).
        .target(
            name: "IntakeService",
            dependencies: [
                "IntakeCore", "IntakeExport",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The reference server's HTTP: the application, controllers, `APIError`, JSON coding,
        // request bodies, the token authenticator, rate limits and openapi.yaml, over IntakeService.
        .target(
            name: "IntakeServer",
            dependencies: [
                "IntakeCore", "IntakeExport", "IntakeService",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("openapi.yaml")]
        ),
        // The web console for coordinators, researchers and admins, served by `intake serve` under
        // /console: pages rendered on the server from Mustache templates, over the same services
        // and access policy as the API (it sees no store).
        .target(
            name: "IntakeConsole",
            dependencies: [
                "IntakeCore", "IntakeService", "IntakeServer", "IntakeExport",
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Templates"), .copy("Assets")]
        ),
        // XLSForms both ways: .xlsx (read with ZIPFoundation and Foundation's XML parser, written
        // with IntakeExport's XLSXBook), pyxform's .csv and .md forms, XLSForm expressions to and from Intake's.
        .target(
            name: "IntakeXLSForm", dependencies: ["IntakeCore", "IntakeExport", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        // ODK Central's API, the part pyodk uses, over the server's services: `intake serve` mounts
        // it under /odk beside the console.
        .target(
            name: "IntakeODK",
            dependencies: [
                "IntakeCore", "IntakeService", "IntakeServer", "IntakeExport", "IntakeXLSForm",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // REDCap's API, the part PyCap uses: one form-encoded POST route at /api/, over the server's
        // services (the same accounts, access policy and consent as Intake's own API).
        .target(
            name: "IntakeREDCap",
            dependencies: [
                "IntakeCore", "IntakeService", "IntakeServer", "IntakeExport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // FHIR R4 REST under /fhir (what fhirclient reads): Questionnaire, QuestionnaireResponse and
        // Patient, over the server's services and the FHIR mapping of IntakeExport.
        .target(
            name: "IntakeFHIR",
            dependencies: [
                "IntakeCore", "IntakeService", "IntakeServer", "IntakeExport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The server's embedded default store: one SQLite file through GRDB.
        .target(
            name: "IntakeSQLite",
            dependencies: [
                "IntakeCore", "IntakeExport", "IntakeService", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // The server's PostgreSQL store, for deployments that outgrow one machine.
        .target(
            name: "IntakePostgres",
            dependencies: [
                "IntakeCore", "IntakeExport", "IntakeService",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A deployment's store chosen from its configuration, and moving one from SQLite to PostgreSQL.
        .target(
            name: "IntakeDeployment",
            dependencies: [
                "IntakeService", "IntakeServer", "IntakeSQLite", "IntakePostgres",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The store contract every `RecordStore` must pass (Swift Testing expectations), for the
        // tests of each store: IntakeServerTests runs it on SQLite and PostgreSQL.
        .target(name: "IntakeStoreTesting", dependencies: ["IntakeCore", "IntakeExport", "IntakeService"]),
        .executableTarget(
            name: "intake",
            dependencies: [
                "IntakeCore", "IntakeStore", "IntakeForm", "IntakeFieldwork", "IntakeService", "IntakeServer", "IntakeDeployment",
                "IntakeClient", "IntakeExport",
                "IntakeTerminal", "IntakeConsole", "IntakeXLSForm", "IntakeODK", "IntakeREDCap", "IntakeFHIR",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Benchmarks: not shipped. The micro paths with ordo-one/benchmark
        // (`swift package benchmark`), and the comparisons with reference tools (`scripts/bench`).
        .executableTarget(
            name: "RecordCodecBenchmarks",
            dependencies: ["IntakeCore", "IntakeStore", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/RecordCodec",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "intake-bench",
            dependencies: [
                "IntakeCore", "IntakeStore", "IntakeService", "IntakeServer", "IntakeSQLite", "IntakePostgres", "IntakeDeployment",
                "IntakeClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/RecordPath"
        ),
        .testTarget(name: "IntakeCoreTests", dependencies: ["IntakeCore"]),
        .testTarget(
            name: "IntakeStoreTests", dependencies: ["IntakeStore", "IntakeCore", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(
            name: "IntakeExportTests",
            dependencies: ["IntakeExport", "IntakeCore", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        .testTarget(
            name: "IntakeXLSFormTests",
            dependencies: ["IntakeXLSForm", "IntakeCore", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        .testTarget(name: "IntakeFormTests", dependencies: ["IntakeForm", "IntakeTerminal", "IntakeCore"]),
        .testTarget(
            name: "IntakeFieldworkTests", dependencies: ["IntakeFieldwork", "IntakeForm", "IntakeStore", "IntakeClient", "IntakeCore"]),
        // What the server-side test targets share: a test server, the stores the contracts run on, a
        // browser for the console, a fixture file. Not shipped.
        .target(
            name: "IntakeServerTestSupport",
            dependencies: [
                "IntakeCore",
                "IntakeDeployment",
                "IntakePostgres",
                "IntakeSQLite",
                "IntakeServer",
                "IntakeService",
                "IntakeStoreTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/ServerTestSupport"
        ),
        .testTarget(
            name: "IntakeServiceTests",
            dependencies: [
                "IntakeCore",
                "IntakeService",
            ]
        ),
        .testTarget(
            name: "IntakeStoreContractTests",
            dependencies: [
                "IntakeServerTestSupport",
                "IntakeCore",
                "IntakeDeployment",
                "IntakePostgres",
                "IntakeSQLite",
                "IntakeServer",
                "IntakeService",
                "IntakeStoreTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "IntakeDeploymentTests",
            dependencies: [
                "IntakeServerTestSupport",
                "IntakeCore",
                "IntakeDeployment",
                "IntakePostgres",
                "IntakeSQLite",
                "IntakeServer",
                "IntakeService",
                "IntakeStoreTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "IntakeServerTests",
            dependencies: [
                "IntakeServerTestSupport",
                "IntakeConsole",
                "IntakeCore",
                "IntakeDeployment",
                "IntakeFHIR",
                "IntakeODK",
                "IntakePostgres",
                "IntakeREDCap",
                "IntakeSQLite",
                "IntakeServer",
                "IntakeService",
                "IntakeStoreTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "IntakeConsoleTests",
            dependencies: [
                "IntakeServerTestSupport",
                "IntakeConsole",
                "IntakeCore",
                "IntakeServer",
                "IntakeService",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "IntakeODKTests",
            dependencies: [
                "IntakeServerTestSupport",
                "IntakeCore",
                "IntakeODK",
                "IntakeServer",
                "IntakeService",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "IntakeREDCapTests",
            dependencies: [
                "IntakeServerTestSupport",
                "IntakeCore",
                "IntakeREDCap",
                "IntakeServer",
                "IntakeService",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "IntakeFHIRTests",
            dependencies: [
                "IntakeServerTestSupport",
                "IntakeCore",
                "IntakeFHIR",
                "IntakeServer",
                "IntakeService",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "IntakeClientTests",
            dependencies: [
                "IntakeClient", "IntakeFieldwork", "IntakeService", "IntakeServer", "IntakeSQLite", "IntakeStore", "IntakeExport",
                "IntakeCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "intakeTests",
            dependencies: [
                "IntakeCore", "IntakeStore", "IntakeService", "IntakeServer", "IntakeDeployment",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
