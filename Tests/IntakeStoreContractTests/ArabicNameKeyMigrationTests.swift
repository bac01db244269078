import Foundation
import GRDB
import IntakeCore
import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

@testable import IntakeSQLite
@testable import IntakeServer
@testable import IntakeService

/// Name keys stored before lookups folded Arabic letter variants (`NameKey.fold` of the names)
/// are recomputed when the server opens the database (SQLite v26, PostgreSQL v24), so old
/// records and patients are found by any variant, and the lookup vocabulary keeps no key nothing
/// can look up any more.
struct ArabicNameKeyMigrationTests {
    static let people = [("فاطمة", "الأحمد"), ("مُوسى", "إبراهيم"), ("Amina", "Haddad")]

    static func records() -> [PatientResponse] { MigrationDatabase.records(of: people, seed: 800) }

    /// The keys an older server stored that the migration must change.
    static let oldKeys = people.flatMap { [$0.0, $0.1] }.map(NameKey.fold).filter { NameKey.lookupKey($0) != $0 }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    /// Lookups and registry searches by the other variant of each name.
    static func expectFoundByAnyVariant(_ store: any RecordStore, team: Int64) async throws {
        func family(_ name: String) async throws -> [String] {
            try await store.lookup(LookupQuery(teamId: team, familyName: name)).map { "\($0.patient.familyName) \($0.score)" }
        }
        #expect(try await family("الاحمد") == ["الأحمد 40"])
        #expect(try await family("ابراهيم") == ["إبراهيم 40"])
        #expect(try await family("حمد") == ["الأحمد 10"], "a substring, from the vocabulary's new key")
        #expect(try await family("haddad") == ["Haddad 40"])
        let given = try await store.lookup(LookupQuery(teamId: team, givenName: "موسي")).map(\.patient.givenName)
        #expect(given == ["مُوسى"])
        #expect(try await store.findPatients(PatientQuery(name: "فاطمه الاحمد")).map(\.identification.givenName) == ["فاطمة"])
        #expect(try await store.findPatients(PatientQuery(name: "ابراهيم")).map(\.identification.givenName) == ["مُوسى"])
    }

    /// Rows holding a key an older server stored: none is left.
    static let oldKeyRows = """
        SELECT recordId FROM lookupEntry WHERE familyNameKey IN (\(oldKeys.map(quoted).joined(separator: ", ")))
            OR givenNameKey IN (\(oldKeys.map(quoted).joined(separator: ", ")))
        UNION ALL SELECT id FROM record WHERE familyNameKey IN (\(oldKeys.map(quoted).joined(separator: ", ")))
            OR givenNameKey IN (\(oldKeys.map(quoted).joined(separator: ", ")))
        UNION ALL SELECT id FROM patient WHERE familyKey IN (\(oldKeys.map(quoted).joined(separator: ", ")))
            OR givenKey IN (\(oldKeys.map(quoted).joined(separator: ", ")))
        UNION ALL SELECT key FROM lookupKey WHERE key IN (\(oldKeys.map(quoted).joined(separator: ", ")))
        """

    @Test func aSQLiteDatabaseOfSchemaV25IsFoundByAnyVariant() async throws {
        #expect(!Self.oldKeys.isEmpty, "fold leaves variants in الأحمد إبراهيم فاطمة مُوسى")
        // Given a database at schema v25 holding records and registry patients keyed by fold
        let (path, queue) = try MigrationDatabase.queue(upTo: "v25: when a referral was accepted and by whom; an invitation's message")
        let records = Self.records()
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO team (id, name, createdAt) VALUES (1, 't', 0)")
            for (index, record) in records.enumerated() {
                try MigrationDatabase.insertRecord(
                    record, index: index, givenKey: NameKey.fold(record.patient.givenName),
                    familyKey: NameKey.fold(record.patient.familyName), db)
                try db.execute(
                    sql: """
                        INSERT INTO patient (id, teamId, givenName, familyName, givenKey, familyKey, revision, createdBy, createdAt, updatedAt)
                        VALUES (?, 1, ?, ?, ?, ?, 1, 'cora', 0, 0)
                        """,
                    arguments: [
                        UUID().uuidString.lowercased(), record.patient.givenName, record.patient.familyName,
                        NameKey.fold(record.patient.givenName), NameKey.fold(record.patient.familyName),
                    ])
            }
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(Self.oldKeyRows))")! > 0, "what the migration has to change")
        }
        try queue.close()

        // When the server opens it
        let store = try SQLiteRecordStore(path: path)

        // Then every stored key is the lookup key, the vocabulary and its trigram index agree, and
        // each name is found by the other variant
        try await store.database.write { db in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(Self.oldKeyRows))") == 0)
            for record in records {
                let id = record.id.uuidString.lowercased()
                let keys = [NameKey.lookupKey(record.patient.givenName), NameKey.lookupKey(record.patient.familyName)]
                for table in ["record WHERE id", "lookupEntry WHERE recordId"] {
                    let row = try #require(
                        try Row.fetchOne(db, sql: "SELECT givenNameKey, familyNameKey FROM \(table) = ?", arguments: [id]))
                    #expect([row[0] as String, row[1] as String] == keys, "\(table)")
                }
                let patient = try #require(
                    try Row.fetchOne(
                        db, sql: "SELECT givenKey, familyKey FROM patient WHERE givenName = ?", arguments: [record.patient.givenName]))
                #expect([patient[0] as String, patient[1] as String] == keys)
            }
            let vocabulary = try Row.fetchAll(db, sql: "SELECT field, key FROM lookupKey").map { "\($0[0] as Int) \($0[1] as String)" }
            let expected = records.flatMap {
                ["0 \(NameKey.lookupKey($0.patient.familyName))", "1 \(NameKey.lookupKey($0.patient.givenName))"]
            }
            #expect(Set(vocabulary) == Set(expected))
            try db.execute(sql: "INSERT INTO lookupKeyName (lookupKeyName, rank) VALUES ('integrity-check', 1)")
        }
        try await Self.expectFoundByAnyVariant(store, team: 1)
    }

    @Test(arguments: StoreKind.allCases) func keysStoredByAnOlderServerAreRecomputed(_ kind: StoreKind) async throws {
        let database = try kind.newDatabase()
        var store = try await kind.open(database: database)
        let team = try await store.createTeam(name: "t", at: Date())
        let records = Self.records()
        for (index, record) in records.enumerated() {
            _ = try await store.ingest(
                [IngestItem(record: record)], owner: RecordOwner(teamId: team.id, username: "u"),
                at: Date(timeIntervalSince1970: Double(1000 + index)))
            let person = PatientIdentification(givenName: record.patient.givenName, familyName: record.patient.familyName)
            let patient = NewPatient(teamId: team.id, identification: person, createdBy: "cora", createdAt: Date())
            _ = try await store.registerPatients([patient])
        }
        // Given the keys as an older server stored them, and the migration not yet run
        var statements = records.flatMap { record in
            let (given, family) = (
                Self.quoted(NameKey.fold(record.patient.givenName)), Self.quoted(NameKey.fold(record.patient.familyName))
            )
            return [
                "UPDATE record SET givenNameKey = \(given), familyNameKey = \(family) WHERE id = '\(record.id.uuidString.lowercased())'",
                "UPDATE patient SET givenKey = \(given), familyKey = \(family) WHERE givenName = \(Self.quoted(record.patient.givenName))",
            ]
        }
        switch kind {
        case .sqlite:
            statements.append("DELETE FROM grdb_migrations WHERE identifier LIKE 'v26:%'")
            let queue = try DatabaseQueue(path: database)
            try await queue.write { [statements] db in
                for statement in statements { try db.execute(sql: statement) }
                #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(Self.oldKeyRows))")! > 0)
            }
            try queue.close()
        case .postgres:
            statements.append("DELETE FROM intake_migration WHERE name LIKE 'v24:%'")
            for statement in statements { try await PostgresTesting.execute(statement, in: database) }
            await #expect(throws: (any Error).self, "rows hold the old keys") {
                try await PostgresTesting.execute(
                    "DO $$ BEGIN IF EXISTS (\(Self.oldKeyRows)) THEN RAISE 'old keys'; END IF; END $$", in: database)
            }
        }

        // When the server opens it
        store = try await kind.open(database: database)

        // Then no row holds an old key, and each name is found by the other variant
        switch kind {
        case .sqlite:
            let queue = try DatabaseQueue(path: database)
            try await queue.write { db in
                #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(Self.oldKeyRows))") == 0)
                try db.execute(sql: "INSERT INTO lookupKeyName (lookupKeyName, rank) VALUES ('integrity-check', 1)")
            }
            try queue.close()
        case .postgres:
            try await PostgresTesting.execute(
                "DO $$ BEGIN IF EXISTS (\(Self.oldKeyRows)) THEN RAISE 'old keys'; END IF; END $$", in: database)
        }
        try await Self.expectFoundByAnyVariant(store, team: team.id)
    }
}
