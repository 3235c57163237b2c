import Foundation
import HearthApp
import HearthPlatform
import HearthTestSupport
import Logging
import PostgresNIO
import Testing

@Suite struct MigrationFileTests {
    @Test func loadsTheRepositoryMigrationsInOrder() throws {
        let migrations = try Migration.load(from: TestPaths.migrations)
        #expect(migrations.map(\.version) == Array(1...migrations.count))
        #expect(migrations.first?.fileName == "0001_tenancy.sql")
    }

    @Test(arguments: ["1_x.sql", "0001-x.sql", "0001_x.txt", "abcd_x.sql", "0001_.sql", "0000_zero.sql"])
    func rejectsBadFileNames(_ name: String) throws {
        let directory = try temporaryMigrations([name: "SELECT 1;"])
        #expect(throws: MigrationError.badFileName(name)) { try Migration.load(from: directory) }
    }

    @Test func rejectsDuplicateVersions() throws {
        let directory = try temporaryMigrations(["0001_a.sql": "SELECT 1;", "0001_b.sql": "SELECT 2;"])
        #expect(throws: MigrationError.duplicateVersion("0001_a.sql", "0001_b.sql")) { try Migration.load(from: directory) }
    }
}

/// The runner against a real, empty database per test.
@Suite struct MigratorTests {
    @Test func appliesInOrderRecordsChecksumsAndIsIdempotent() async throws {
        try await withEmptyDatabase { client in
            let migrations = [
                Migration(version: 1, name: "first", sql: "CREATE TABLE one (id int PRIMARY KEY);"),
                Migration(version: 2, name: "second", sql: "CREATE TABLE two (id int REFERENCES one (id));\nINSERT INTO one VALUES (1);"),
            ]
            let first = try await Migrator(migrations: migrations, logger: TestLogs.quiet).run(on: client)
            #expect(first == .init(applied: ["0001_first.sql", "0002_second.sql"], alreadyApplied: 0))
            let again = try await Migrator(migrations: migrations, logger: TestLogs.quiet).run(on: client)
            #expect(again == .init(applied: [], alreadyApplied: 2))
            let rows = try await client.query("SELECT version, checksum FROM schema_migrations ORDER BY version", logger: TestLogs.quiet)
            var recorded: [(Int, String)] = []
            for try await row in rows.decode((Int, String).self) { recorded.append(row) }
            #expect(recorded.map(\.0) == [1, 2])
            #expect(recorded.map(\.1) == migrations.map(\.checksum))
        }
    }

    @Test func refusesWhenAnAppliedFileChanged() async throws {
        try await withEmptyDatabase { client in
            _ = try await Migrator(migrations: [Migration(version: 1, name: "a", sql: "CREATE TABLE a (id int);")], logger: TestLogs.quiet).run(on: client)
            let edited = [
                Migration(version: 1, name: "a", sql: "CREATE TABLE a (id bigint);"),
                Migration(version: 2, name: "b", sql: "CREATE TABLE b (id int);"),
            ]
            await #expect(throws: MigrationError.changedAfterApply(file: "0001_a.sql")) {
                try await Migrator(migrations: edited, logger: TestLogs.quiet).run(on: client)
            }
            // Nothing after the changed file ran.
            #expect(try await tableExists("b", client) == false)
        }
    }

    @Test func refusesWhenAnAppliedFileIsMissing() async throws {
        try await withEmptyDatabase { client in
            _ = try await Migrator(migrations: [Migration(version: 1, name: "a", sql: "SELECT 1;")], logger: TestLogs.quiet).run(on: client)
            await #expect(throws: MigrationError.missingFile(version: 1, name: "a")) {
                try await Migrator(migrations: [], logger: TestLogs.quiet).run(on: client)
            }
        }
    }

    @Test func aFailingFileIsNamedWithItsLineAndRolledBackWhole() async throws {
        try await withEmptyDatabase { client in
            let migrations = [
                Migration(version: 1, name: "good", sql: "CREATE TABLE good (id int);"),
                Migration(version: 2, name: "bad", sql: "CREATE TABLE half (id int);\n\nINSERT INTO nowhere VALUES (1);"),
            ]
            do {
                _ = try await Migrator(migrations: migrations, logger: TestLogs.quiet).run(on: client)
                Issue.record("expected the second migration to fail")
            } catch let MigrationError.failed(file, line, reason) {
                #expect(file == "0002_bad.sql")
                #expect(line == 3)
                #expect(reason.contains("nowhere"))
                #expect(MigrationError.failed(file: file, line: line, reason: reason).description.hasPrefix("0002_bad.sql line 3: "))
            }
            #expect(try await tableExists("good", client))
            #expect(try await tableExists("half", client) == false)
            let applied = try await client.query("SELECT count(*)::int FROM schema_migrations", logger: TestLogs.quiet).collect()
            #expect(try applied.first?.decode(Int.self) == 1)
        }
    }

    @Test func concurrentRunnersApplyEachFileOnce() async throws {
        try await withEmptyDatabase { client in
            let migrations = [Migration(version: 1, name: "a", sql: "CREATE TABLE a (id int);")]
            let reports = try await withThrowingTaskGroup(of: Migrator.Report.self) { group in
                for _ in 0..<3 { group.addTask { try await Migrator(migrations: migrations, logger: TestLogs.quiet).run(on: client) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(reports.map(\.applied.count).reduce(0, +) == 1)
        }
    }
}

func temporaryMigrations(_ files: [String: String]) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    for (name, sql) in files { try sql.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8) }
    return directory
}

/// A brand-new empty database on the test server (not the migrated template).
func withEmptyDatabase(_ body: @Sendable (PostgresClient) async throws -> Void) async throws {
    let endpoints = try await TestPostgres.shared.serverEndpoints()
    let name = "empty_\(UUID().uuidString.prefix(8).lowercased())"
    try await Database.connect(to: endpoints.admin.with(database: "postgres"), logger: TestLogs.quiet) { database in
        try await database.client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: TestLogs.quiet)
    }
    try await Database.connect(to: endpoints.admin.with(database: name), logger: TestLogs.quiet) { database in
        try await body(database.client)
    }
}

func tableExists(_ name: String, _ client: PostgresClient) async throws -> Bool {
    let rows = try await client.query("SELECT to_regclass(\(name)) IS NOT NULL", logger: TestLogs.quiet).collect()
    return try rows.first?.decode(Bool.self) ?? false
}
