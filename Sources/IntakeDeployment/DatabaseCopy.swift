import Crypto
import Foundation
import GRDB
import IntakePostgres
import IntakeSQLite
import IntakeServer
import IntakeService
import PostgresNIO

/// Moves a deployment from its SQLite file to an empty PostgreSQL database, and proves it: in one
/// PostgreSQL transaction it copies every table (ids, change cursors and the server's secrets
/// kept, so patient keys and export cursors stay valid), then reads both sides back and compares
/// row counts and a SHA-256 over every row of every table. Anything that differs rolls the whole
/// copy back: the target is left as it was.
public enum DatabaseCopy {
    /// One table as copied: its rows and the digest both sides agreed on.
    public struct Table: Sendable, Equatable {
        public var name: String
        public var rows: Int
        public var digest: String
    }

    /// Copies the SQLite database at `path` (the server should be stopped) into the empty
    /// PostgreSQL database `url`; `progress` hears each table's name and rows copied so far.
    public static func copy(
        sqlite path: String, to url: String, progress: @Sendable (String, Int) -> Void = { _, _ in }
    ) async throws(StoreOpeningError) -> [Table] {
        do {
            return try await copy(sqlite: path, to: try PostgresDatabaseURL(url), progress: progress)
        } catch let error as PostgresStoreError {
            throw StoreOpeningError(error.description)
        } catch let error as StoreOpeningError {
            throw error
        } catch {
            throw StoreOpeningError("the copy into \(PostgresDatabaseURL.redacted(url)) failed (\(type(of: error))); nothing was kept")
        }
    }

    static func copy(
        sqlite path: String, to url: PostgresDatabaseURL, progress: @Sendable (String, Int) -> Void
    ) async throws -> [Table] {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreOpeningError("there is no SQLite database at \(path); give the file 'intake serve' used")
        }
        // Opening it brings an older file up to the current schema, as 'intake serve' would.
        do { _ = try SQLiteRecordStore(path: path) } catch {
            throw StoreOpeningError("\(path) cannot be opened as an Intake server database")
        }
        var configuration = Configuration()
        configuration.readonly = true
        let source = try DatabasePool(path: path, configuration: configuration)
        let snapshot = try source.makeSnapshot()
        let store = try await PostgresRecordStore(url: url)
        let tables = try await store.transaction { connection in
            try await PostgresRecordStore.lock(PostgresRecordStore.changeLock, connection)
            let held =
                try await connection.query(
                    """
                    SELECT (SELECT COUNT(*) FROM team) + (SELECT COUNT(*) FROM account) + (SELECT COUNT(*) FROM record)
                         + (SELECT COUNT(*) FROM questionnaire) + (SELECT COUNT(*) FROM serverSecret)
                    """, logger: PostgresRecordStore.logger
                ).collect().first?.decode(Int.self) ?? 0
            guard held == 0 else {
                throw StoreOpeningError("\(url) already holds Intake data; copy into an empty database (nothing was changed)")
            }
            var tables: [Table] = []
            for table in CopiedTable.all {
                try await table.copy(from: snapshot, to: connection) { progress(table.target, $0) }
            }
            try await connection.query(
                "SELECT setval(pg_get_serial_sequence('team', 'id'), COALESCE((SELECT MAX(id) FROM team), 0) + 1, false)",
                logger: PostgresRecordStore.logger)
            try await connection.query(
                "SELECT setval(pg_get_serial_sequence('account', 'id'), COALESCE((SELECT MAX(id) FROM account), 0) + 1, false)",
                logger: PostgresRecordStore.logger)
            try await connection.query(
                "SELECT setval('record_change', COALESCE((SELECT MAX(changeSeq) FROM record), 0) + 1, false)",
                logger: PostgresRecordStore.logger)
            try await connection.query(
                "SELECT setval('intake_case_seq', COALESCE((SELECT MAX(changeSeq) FROM intakeCase), 0) + 1, false)",
                logger: PostgresRecordStore.logger)
            // Each team's sequence (made by a trigger as its row went in) after its records' cursors.
            try await connection.query(
                PostgresQuery(unsafeSQL: PostgresRecordStore.teamSequencesCatchUp), logger: PostgresRecordStore.logger)
            for table in ["membershipEvent", "notification", "announcement", "referralMessage", "consent", "device", "reviewEntry"] {
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL:
                            "SELECT setval(pg_get_serial_sequence('\(table)', 'id'), COALESCE((SELECT MAX(id) FROM \(table)), 0) + 1, false)"
                    ),
                    logger: PostgresRecordStore.logger)
            }
            for table in CopiedTable.all {
                let (sourceRows, sourceDigest) = try table.digestOfSource(snapshot)
                let (targetRows, targetDigest) = try await table.digestOfTarget(connection)
                guard sourceRows == targetRows, sourceDigest == targetDigest else {
                    throw StoreOpeningError(
                        "the copy of \(table.source) differs (\(sourceRows) rows in SQLite, \(targetRows) in PostgreSQL"
                            + (sourceRows == targetRows ? ", contents differ" : "") + "); nothing was changed")
                }
                tables.append(Table(name: table.target, rows: sourceRows, digest: sourceDigest))
            }
            return tables
        }
        // Fresh statistics, so the planner reads the lookup indexes in order from the first query
        // rather than after autovacuum gets to the new tables.
        try await store.client.query("ANALYZE", logger: PostgresRecordStore.logger)
        return tables
    }
}

/// A table as the copy moves it: the same columns on both sides, read in the same order.
struct CopiedTable: Sendable {
    enum Kind: Sendable { case text, integer, real, boolean, blob }

    var source: String
    var target: String
    var columns: [(name: String, kind: Kind)]
    /// The column(s) rows are read in order of, for the digest.
    var order: String
    /// How the SQLite side reads its rows in `order`, when not from its table alone.
    var sourceSelect: String? = nil

    static let all: [CopiedTable] = [
        CopiedTable(
            source: "team", target: "team", columns: [("id", .integer), ("name", .text), ("createdAt", .real), ("timeZone", .text)],
            order: "id"),
        CopiedTable(
            source: "user", target: "account",
            columns: [
                ("id", .integer), ("username", .text), ("passwordHash", .text), ("role", .text), ("teamId", .integer),
                ("disabled", .boolean), ("createdAt", .real), ("failedSignIns", .integer), ("lastFailedSignInAt", .real),
                ("lockedAt", .real), ("teamSince", .real), ("researchAccess", .text), ("language", .text),
            ], order: "id"),
        CopiedTable(
            source: "token", target: "token",
            columns: [("hash", .text), ("userId", .integer), ("name", .text), ("createdAt", .real), ("expiresAt", .real)], order: "hash"),
        CopiedTable(
            source: "questionnaire", target: "questionnaire",
            columns: [
                ("id", .text), ("version", .text), ("title", .text), ("questionCount", .integer), ("files", .text), ("lists", .text),
                ("publishedAt", .real), ("state", .text), ("stateChangedAt", .real), ("stateChangedBy", .text),
            ], order: "id, version"),
        CopiedTable(
            source: "record", target: "record",
            columns: [
                ("id", .text), ("questionnaireId", .text), ("questionnaireVersion", .text), ("teamId", .integer), ("receivedBy", .text),
                ("collector", .text),
                ("status", .text), ("revision", .integer), ("createdAt", .real), ("updatedAt", .real), ("receivedAt", .real),
                ("givenNameKey", .text), ("familyNameKey", .text), ("dateOfBirth", .text), ("externalId", .text), ("body", .text),
                ("changeSeq", .integer), ("teamSeq", .integer), ("patientId", .text), ("firstChangeSeq", .integer),
                ("firstTeamSeq", .integer),
                ("deletedAt", .real), ("deletedBy", .text), ("deleteReason", .text), ("exitOf", .text), ("exitTo", .integer),
                ("reviewState", .text), ("reviewLocked", .boolean), ("reviewedAt", .real), ("reviewedBy", .text),
                ("caseWork", .text), ("followsCase", .text),
            ], order: "changeSeq"),
        CopiedTable(
            source: "reviewEntry", target: "reviewEntry",
            columns: [
                ("id", .integer), ("recordId", .text), ("author", .text), ("state", .text), ("locked", .boolean), ("text", .text),
                ("at", .real),
            ], order: "id"),
        CopiedTable(
            source: "recordRevision", target: "recordRevision",
            columns: [
                ("recordId", .text), ("revision", .integer), ("contentHash", .text), ("body", .text), ("savedBy", .text),
                ("savedAt", .real),
                ("deviceId", .text),
            ], order: "recordId, revision",
            // Revisions are keyed by their record's rowid (SQLite v37): read in their records' id
            // order through the record's key and theirs, not sorted (the copy opens the store
            // first, which puts revisions on their records).
            sourceSelect: """
                SELECT v.recordId, v.revision, v.contentHash, v.body, v.savedBy, v.savedAt, v.deviceId
                FROM record r JOIN recordRevision v ON v.recordRow = r.rowid AND v.recordId = r.id
                ORDER BY r.id, v.revision
                """),
        CopiedTable(
            source: "serverSecret", target: "serverSecret", columns: [("name", .text), ("value", .blob), ("createdAt", .real)],
            order: "name"),
        CopiedTable(
            source: "membershipEvent", target: "membershipEvent",
            columns: [
                ("id", .integer), ("teamId", .integer), ("username", .text), ("kind", .text), ("role", .text), ("actor", .text),
                ("at", .real),
            ], order: "id"),
        CopiedTable(
            source: "invitation", target: "invitation",
            columns: [
                ("id", .text), ("teamId", .integer), ("inviteeId", .integer), ("role", .text), ("invitedBy", .text),
                ("passcodeHash", .text),
                ("state", .text), ("failedAttempts", .integer), ("createdAt", .real), ("expiresAt", .real), ("updatedAt", .real),
                ("message", .text),
            ], order: "id"),
        CopiedTable(
            source: "announcement", target: "announcement",
            columns: [
                ("id", .integer), ("teamId", .integer), ("author", .text), ("text", .text), ("createdAt", .real), ("recipients", .integer),
            ], order: "id"),
        CopiedTable(
            source: "referral", target: "referral",
            columns: [
                ("id", .text), ("recordId", .text), ("fromTeamId", .integer), ("referrer", .text), ("toTeamId", .integer),
                ("assignee", .text),
                ("reason", .text), ("priority", .text), ("allowEdit", .boolean), ("state", .text), ("createdAt", .real),
                ("updatedAt", .real),
                ("acceptedAt", .real), ("acceptedBy", .text),
            ], order: "id"),
        CopiedTable(
            source: "referralMessage", target: "referralMessage",
            columns: [("id", .integer), ("referralId", .text), ("author", .text), ("text", .text), ("at", .real)], order: "id"),
        CopiedTable(
            source: "notification", target: "notification",
            columns: [
                ("id", .integer), ("userId", .integer), ("type", .text), ("eventKey", .text), ("subject", .text), ("createdAt", .real),
                ("readAt", .real),
            ], order: "id"),
        CopiedTable(
            source: "webhook", target: "webhook",
            columns: [
                ("id", .text), ("ownerId", .integer), ("createdBy", .text), ("url", .text), ("types", .text), ("secret", .text),
                ("createdAt", .real), ("deliveredThrough", .integer), ("delivered", .integer), ("failures", .integer), ("lastError", .text),
                ("lastAttemptAt", .real), ("nextAttemptAt", .real), ("suspended", .boolean), ("leaseUntil", .real),
            ], order: "id"),
        CopiedTable(
            source: "patient", target: "patient",
            columns: [
                ("id", .text), ("teamId", .integer), ("givenName", .text), ("familyName", .text), ("givenKey", .text), ("familyKey", .text),
                ("dateOfBirth", .text),
                ("sex", .text), ("externalId", .text), ("revision", .integer), ("archivedAt", .real), ("sharingScope", .text),
                ("createdBy", .text), ("createdAt", .real), ("updatedAt", .real),
            ], order: "id"),
        CopiedTable(
            source: "consent", target: "consent",
            columns: [
                ("id", .integer), ("patientId", .text), ("scope", .text), ("method", .text), ("recordedBy", .text), ("recordedAt", .real),
                ("changeSeq", .integer), ("teamSeq", .integer),
            ],
            order: "id"),
        CopiedTable(
            source: "dataGroup", target: "dataGroup",
            columns: [("name", .text), ("description", .text), ("createdBy", .text), ("createdAt", .real)], order: "name"),
        CopiedTable(
            source: "patientGroup", target: "patientGroup", columns: [("patientId", .text), ("groupName", .text)],
            order: "patientId, groupName"),
        CopiedTable(source: "reportSeries", target: "reportSeries", columns: [("name", .text), ("dateKind", .text)], order: "name"),
        CopiedTable(
            source: "report", target: "report",
            columns: [
                ("patientId", .text), ("series", .text), ("dateKey", .text), ("version", .integer), ("body", .text), ("recordedBy", .text),
                ("recordedAt", .real),
            ], order: "patientId, series, dateKey, version"),
        // The audit trail as it is, hashes and all: it verifies in the copy as in the original.
        CopiedTable(
            source: "auditEvent", target: "auditEvent",
            columns: [
                ("seq", .integer), ("at", .text), ("actor", .text), ("action", .text), ("subject", .text), ("details", .text),
                ("previousHash", .text), ("hash", .text),
            ], order: "seq"),
        CopiedTable(
            source: "recordGrant", target: "recordGrant",
            columns: [
                ("id", .text), ("recordId", .text), ("toUser", .text), ("toTeamId", .integer), ("access", .text), ("expiresAt", .real),
                ("grantedBy", .text), ("grantedAt", .real), ("revokedAt", .real), ("revokedBy", .text),
            ], order: "id"),
        CopiedTable(
            source: "questionnaireAccess", target: "questionnaireAccess",
            columns: [("questionnaireId", .text), ("collectorOnly", .boolean), ("changedBy", .text), ("changedAt", .real)],
            order: "questionnaireId"),
        CopiedTable(
            source: "changeHorizon", target: "changeHorizon", columns: [("teamId", .integer), ("teamSeq", .integer)], order: "teamId"),
        CopiedTable(
            source: "enrolment", target: "enrolment",
            columns: [
                ("id", .text), ("teamId", .integer), ("username", .text), ("secretHash", .text), ("createdBy", .text), ("createdAt", .real),
                ("expiresAt", .real), ("state", .text), ("failedAttempts", .integer), ("usedAt", .real), ("deviceId", .text),
            ], order: "id"),
        CopiedTable(
            source: "device", target: "device",
            columns: [
                ("id", .integer), ("deviceId", .text), ("name", .text), ("teamId", .integer), ("username", .text), ("enrolment", .text),
                ("tokenHash", .text), ("enrolledAt", .real), ("revokedAt", .real), ("revokedBy", .text), ("lastSeenAt", .real),
                ("lastUploadAt", .real), ("queueSize", .integer), ("intakeVersion", .text),
            ], order: "id"),
        CopiedTable(
            source: "intakeCase", target: "intakeCase",
            columns: [
                ("id", .text), ("teamId", .integer), ("list", .text), ("patientId", .text), ("assignee", .text), ("status", .text),
                ("due", .text), ("revision", .integer), ("changeSeq", .integer), ("updatedAt", .real), ("body", .text),
            ], order: "changeSeq"),
        CopiedTable(source: "caseCursor", target: "caseCursor", columns: [("teamId", .integer), ("cursor", .integer)], order: "teamId"),
    ]

    /// One value, as both sides read it.
    enum Value: Sendable {
        case null, text(String), integer(Int64), real(Double), boolean(Bool), blob(Data)

        /// A spelling that is the same whichever side the value came from.
        var canonical: String {
            switch self {
            case .null: "\u{0}"
            case .text(let text): "t" + text
            case .integer(let number): "i\(number)"
            case .real(let number): "r\(number)"
            case .boolean(let flag): flag ? "b1" : "b0"
            case .blob(let data): "x" + data.map { String(format: "%02x", $0) }.joined()
            }
        }
    }

    private static let pageSize = 500

    func copy(from snapshot: DatabaseSnapshot, to connection: PostgresConnection, progress: (Int) -> Void) async throws {
        var offset = 0
        while true {
            let (sql, start) = (sourceQuery + " LIMIT ? OFFSET ?", offset)
            let rows = try await snapshot.read { db in
                try Row.fetchAll(db, sql: sql, arguments: [Self.pageSize, start]).map(sourceValues)
            }
            guard !rows.isEmpty else { return }
            var binds = PostgresBindings(capacity: rows.count * columns.count)
            var tuples: [String] = []
            for row in rows {
                var placeholders: [String] = []
                for value in row {
                    try Self.bind(value, &binds)
                    placeholders.append("$\(binds.count)")
                }
                tuples.append("(" + placeholders.joined(separator: ", ") + ")")
            }
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: "INSERT INTO \(target) (\(columns.map(\.name).joined(separator: ", "))) VALUES "
                        + tuples.joined(separator: ", "),
                    binds: binds),
                logger: PostgresRecordStore.logger)
            offset += rows.count
            progress(offset)
        }
    }

    func digestOfSource(_ snapshot: DatabaseSnapshot) throws -> (rows: Int, digest: String) {
        try snapshot.read { db in
            var hash = SHA256()
            var count = 0
            let cursor = try Row.fetchCursor(db, sql: sourceQuery)
            while let row = try cursor.next() {
                Self.add(sourceValues(row), to: &hash)
                count += 1
            }
            return (count, hash.finalize().map { String(format: "%02x", $0) }.joined())
        }
    }

    func digestOfTarget(_ connection: PostgresConnection) async throws -> (rows: Int, digest: String) {
        var hash = SHA256()
        var count = 0
        // Text in byte order, as SQLite sorts it, whatever the database's collation.
        let orderClause = order.split(separator: ",").map { part in
            let name = part.trimmingCharacters(in: .whitespaces)
            return columns.first { $0.name == name }?.kind == .text ? "\(name) COLLATE \"C\"" : name
        }.joined(separator: ", ")
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT \(columns.map(\.name).joined(separator: ", ")) FROM \(target) ORDER BY \(orderClause)"),
            logger: PostgresRecordStore.logger)
        for try await row in rows {
            Self.add(try targetValues(row), to: &hash)
            count += 1
        }
        return (count, hash.finalize().map { String(format: "%02x", $0) }.joined())
    }

    private var quotedSource: String { "\"\(source)\"" }
    /// The SQLite side's rows in `order`.
    private var sourceQuery: String { sourceSelect ?? "SELECT \(sourceColumns) FROM \(quotedSource) ORDER BY \(order)" }
    private var sourceColumns: String { columns.map(\.name).joined(separator: ", ") }

    private func sourceValues(_ row: Row) -> [Value] {
        var values: [Value] = []
        values.reserveCapacity(columns.count)
        for index in columns.indices {
            values.append(Self.value(row[index], as: columns[index].kind))
        }
        return values
    }

    private static func value(_ value: DatabaseValue, as kind: Kind) -> Value {
        switch (kind, value.storage) {
        case (_, .null): return .null
        case (.text, .string(let text)): return .text(text)
        case (.integer, .int64(let number)): return .integer(number)
        case (.real, .double(let number)): return .real(number)
        case (.real, .int64(let number)): return .real(Double(number))
        case (.boolean, .int64(let number)): return .boolean(number != 0)
        case (.blob, .blob(let data)): return .blob(data)
        case (.text, .blob(let data)): return .text(String(decoding: data, as: UTF8.self))
        default: return .text("\(value)")
        }
    }

    private func targetValues(_ row: PostgresRow) throws -> [Value] {
        var values: [Value] = []
        for (index, cell) in row.enumerated() {
            switch columns[index].kind {
            case .text: values.append(try cell.decode(String?.self).map(Value.text) ?? .null)
            case .integer: values.append(try cell.decode(Int64?.self).map(Value.integer) ?? .null)
            case .real: values.append(try cell.decode(Double?.self).map(Value.real) ?? .null)
            case .boolean: values.append(try cell.decode(Bool?.self).map(Value.boolean) ?? .null)
            case .blob: values.append(try cell.decode(Data?.self).map(Value.blob) ?? .null)
            }
        }
        return values
    }

    private static func bind(_ value: Value, _ binds: inout PostgresBindings) throws {
        switch value {
        case .null: binds.appendNull()
        case .text(let text): binds.append(text)
        case .integer(let number): binds.append(number)
        case .real(let number): binds.append(number)
        case .boolean(let flag): binds.append(flag)
        case .blob(let data): try binds.append(data)
        }
    }

    private static func add(_ values: [Value], to hash: inout SHA256) {
        for value in values {
            hash.update(data: Array(value.canonical.utf8))
            hash.update(data: [0x1F])
        }
        hash.update(data: [0x1E])
    }
}
