import Foundation
import IntakeCore
import IntakeService
import PostgresNIO

/// Registry changes take the patient lock, so that checking an external id and taking it happen
/// in one order across servers (the UNIQUE constraint stays as the last guard).
extension PostgresRecordStore {
    static let patientLock = "intake-patient"

    public func registerPatients(_ patients: [NewPatient]) async throws -> [PatientOutcome] {
        try await transaction { connection in
            try await Self.lock(Self.patientLock, connection)
            var outcomes: [PatientOutcome] = []
            for new in patients {
                if let current = try await Self.patient(connection, id: new.id) {
                    outcomes.append(
                        current.identification == new.identification && current.teamId == new.teamId ? .existing(current) : .idTaken)
                    continue
                }
                if let external = new.identification.externalId,
                    let holder = try await connection.query("SELECT id FROM patient WHERE externalId = \(external)", logger: Self.logger)
                        .collect().first?.decode(String.self)
                {
                    outcomes.append(.externalIdTaken(existing: UUID(uuidString: holder) ?? new.id))
                    continue
                }
                let person = new.identification
                let at = Self.timestamp(new.createdAt)
                try await connection.query(
                    """
                    INSERT INTO patient (id, teamId, givenName, familyName, givenKey, familyKey, dateOfBirth, sex, externalId, revision,
                                         createdBy, createdAt, updatedAt)
                    VALUES (\(Self.key(new.id)), \(new.teamId), \(person.givenName), \(person.familyName), \(NameKey.lookupKey(person.givenName)),
                            \(NameKey.lookupKey(person.familyName)), \(person.dateOfBirth?.description), \(person.sex?.rawValue),
                            \(person.externalId), 1, \(new.createdBy), \(at), \(at))
                    """, logger: Self.logger)
                outcomes.append(.created(try await Self.patient(connection, id: new.id)!))
            }
            return outcomes
        }
    }

    public func patient(id: UUID) async throws -> Patient? {
        try await client.withConnection { connection in try await Self.patient(connection, id: id) }
    }

    public func findPatients(_ query: PatientQuery) async throws -> [Patient] {
        var conditions: [String] = []
        var binds = PostgresBindings()
        if !query.includeArchived { conditions.append("archivedAt IS NULL") }
        if let team = query.teamId {
            binds.append(team)
            conditions.append("teamId = $\(binds.count)")
        }
        if let external = query.externalId {
            binds.append(external)
            conditions.append("externalId = $\(binds.count)")
        }
        if let birth = query.dateOfBirth {
            binds.append(birth.description)
            conditions.append("dateOfBirth = $\(binds.count)")
        }
        if let name = query.name {
            binds.append(PatientNamePattern.prefix(NameKey.lookupKey(name)))
            let p = "$\(binds.count)"
            conditions.append(
                """
                (familyKey LIKE \(p) ESCAPE '\\' OR givenKey LIKE \(p) ESCAPE '\\' OR (givenKey || ' ' || familyKey) LIKE \(p) ESCAPE '\\'
                 OR (familyKey || ' ' || givenKey) LIKE \(p) ESCAPE '\\')
                """)
        }
        if let after = query.after {
            binds.append(Self.key(after))
            conditions.append("id COLLATE \"C\" > $\(binds.count)")
        }
        if let prefix = query.idPrefix {
            binds.append(prefix + "%")
            conditions.append("id LIKE $\(binds.count)")
        }
        binds.append(query.limit)
        let condition = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let order = query.byId ? " ORDER BY id COLLATE \"C\"" : " ORDER BY familyKey, givenKey, id"
        let sql = Self.patientSelect + condition + order + " LIMIT $\(binds.count)"
        return try await client.withConnection { connection in
            try await Self.withGroups(
                try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: Self.logger).collect().map(Self.patient),
                connection)
        }
    }

    public func updatePatient(
        id: UUID, baseRevision: Int, identification person: PatientIdentification, groups: DataGroupChange, at time: Date
    ) async throws -> PatientChangeOutcome {
        try await transaction { connection in
            try await Self.lock(Self.patientLock, connection)
            if let refusal = PatientRules.change(try await Self.patient(connection, id: id), baseRevision: baseRevision) { return refusal }
            if let external = person.externalId,
                let holder = try await connection.query(
                    "SELECT id FROM patient WHERE externalId = \(external) AND id <> \(Self.key(id))", logger: Self.logger
                ).collect().first?.decode(String.self)
            {
                return .externalIdTaken(existing: UUID(uuidString: holder) ?? id)
            }
            if !groups.isEmpty {
                let defined = try await connection.query("SELECT name FROM dataGroup ORDER BY name", logger: Self.logger).collect()
                    .map { try $0.decode(String.self) }
                if let refusal = PatientRules.groups(groups, defined: defined) { return refusal }
            }
            try await connection.query(
                """
                UPDATE patient SET givenName = \(person.givenName), familyName = \(person.familyName),
                    givenKey = \(NameKey.lookupKey(person.givenName)), familyKey = \(NameKey.lookupKey(person.familyName)),
                    dateOfBirth = \(person.dateOfBirth?.description), sex = \(person.sex?.rawValue), externalId = \(person.externalId),
                    revision = revision + 1, updatedAt = \(Self.timestamp(time))
                WHERE id = \(Self.key(id))
                """, logger: Self.logger)
            if !groups.remove.isEmpty {
                try await connection.query(
                    "DELETE FROM patientGroup WHERE patientId = \(Self.key(id)) AND groupName = ANY(\(groups.remove))", logger: Self.logger)
            }
            for name in groups.add {
                try await connection.query(
                    "INSERT INTO patientGroup (patientId, groupName) VALUES (\(Self.key(id)), \(name)) ON CONFLICT DO NOTHING",
                    logger: Self.logger)
            }
            return .changed(try await Self.patient(connection, id: id)!)
        }
    }

    public func createDataGroup(_ group: DataGroup) async throws -> Bool {
        try await !client.query(
            """
            INSERT INTO dataGroup (name, description, createdBy, createdAt)
            VALUES (\(group.name), \(group.description), \(group.createdBy), \(Self.timestamp(group.createdAt)))
            ON CONFLICT DO NOTHING RETURNING name
            """, logger: Self.logger
        ).collect().isEmpty
    }

    public func dataGroups() async throws -> [DataGroup] {
        try await client.query(
            """
            SELECT g.name, g.description, g.createdBy, g.createdAt, (SELECT COUNT(*) FROM patientGroup pg WHERE pg.groupName = g.name)
            FROM dataGroup g ORDER BY g.name
            """, logger: Self.logger
        ).collect().map { row in
            let (name, description, createdBy, createdAt, patients) = try row.decode((String, String, String, Double, Int).self)
            return DataGroup(
                name: name, description: description, createdBy: createdBy, createdAt: Self.date(createdAt), patients: patients)
        }
    }

    public func deleteDataGroup(name: String) async throws -> DataGroupDeletion {
        try await transaction { connection in
            try await Self.lock(Self.patientLock, connection)
            let patients =
                try await connection.query("SELECT COUNT(*) FROM patientGroup WHERE groupName = \(name)", logger: Self.logger).collect()
                .first?
                .decode(Int.self) ?? 0
            guard patients == 0 else { return .inUse(patients: patients) }
            let deleted = try await connection.query("DELETE FROM dataGroup WHERE name = \(name) RETURNING name", logger: Self.logger)
                .collect()
            return deleted.isEmpty ? .notFound : .deleted
        }
    }

    public func setPatientArchived(id: UUID, _ archived: Bool, at time: Date) async throws -> Patient? {
        try await client.withConnection { connection in
            let at = Self.timestamp(time)
            try await connection.query(
                """
                UPDATE patient SET archivedAt = CASE WHEN \(archived) THEN COALESCE(archivedAt, \(at)) ELSE NULL END,
                    revision = revision + (CASE WHEN (archivedAt IS NULL) = \(archived) THEN 1 ELSE 0 END), updatedAt = \(at)
                WHERE id = \(Self.key(id))
                """, logger: Self.logger)
            return try await Self.patient(connection, id: id)
        }
    }

    public func recordConsent(_ consent: Consent) async throws -> Patient? {
        try await transaction { connection in
            // The patient's records count as changed, so the next incremental export brings them
            // to whoever may now receive them, read under the new consent.
            try await Self.lock(Self.changeLock, connection)
            guard let patient = try await Self.patient(connection, id: consent.patientId, forUpdate: true) else { return nil }
            let at = Self.timestamp(consent.recordedAt)
            let records = try await connection.query(
                "SELECT id, teamId FROM record WHERE patientId = \(Self.key(consent.patientId)) ORDER BY changeSeq", logger: Self.logger
            ).collect().map { try $0.decode((String, Int64).self) }
            try await Self.markChanges(teams: [patient.teamId] + records.map(\.1), connection)
            // The consent takes its cursors before its records take theirs: an export that carries
            // any of those changes reads the consent with them, whatever other writers' cursors
            // fall between (they no longer take turns with these).
            let cursors = try await connection.query(
                "SELECT nextval('record_change'), nextval(\(Self.teamSequence(patient.teamId))::regclass)", logger: Self.logger
            ).collect().first?.decode((Int64, Int64).self)
            for (record, teamId) in records {
                try await connection.query(
                    """
                    UPDATE record SET changeSeq = nextval('record_change'), teamSeq = nextval(\(Self.teamSequence(teamId))::regclass)
                    WHERE id = \(record)
                    """, logger: Self.logger)
            }
            try await connection.query(
                """
                INSERT INTO consent (patientId, scope, method, recordedBy, recordedAt, changeSeq, teamSeq)
                VALUES (\(Self.key(consent.patientId)), \(consent.scope.rawValue), \(consent.method.rawValue), \(consent.recordedBy), \(at),
                    \(cursors?.0 ?? 0), \(cursors?.1 ?? 0))
                """, logger: Self.logger)
            try await connection.query(
                "UPDATE patient SET sharingScope = \(consent.scope.rawValue), updatedAt = \(at) WHERE id = \(Self.key(consent.patientId))",
                logger: Self.logger)
            _ = try await Self.appendAudit([AuditEntry.consentChange(consent)], connection)
            return try await Self.patient(connection, id: consent.patientId)
        }
    }

    public func consentHistory(patientId: UUID) async throws -> [Consent] {
        try await client.query(
            "SELECT scope, method, recordedBy, recordedAt FROM consent WHERE patientId = \(Self.key(patientId)) ORDER BY id",
            logger: Self.logger
        ).collect().map { row in
            let (scope, method, recordedBy, recordedAt) = try row.decode((String, String, String, Double).self)
            return Consent(
                patientId: patientId, scope: SharingScope(rawValue: scope) ?? .noSharing,
                method: ConsentMethod(rawValue: method) ?? .verbal,
                recordedBy: recordedBy, recordedAt: Self.date(recordedAt))
        }
    }

    private static let patientSelect = """
        SELECT id, teamId, givenName, familyName, dateOfBirth, sex, externalId, revision, archivedAt, sharingScope, createdBy, createdAt, updatedAt
        FROM patient
        """

    private static func patient(_ connection: PostgresConnection, id: UUID, forUpdate: Bool = false) async throws -> Patient? {
        var binds = PostgresBindings()
        binds.append(key(id))
        guard
            let found = try await connection.query(
                PostgresQuery(unsafeSQL: patientSelect + " WHERE id = $1" + (forUpdate ? " FOR UPDATE" : ""), binds: binds), logger: logger
            ).collect().first.map(patient)
        else { return nil }
        return try await withGroups([found], connection)[0]
    }

    /// The patients with their data groups (one query for all of them).
    private static func withGroups(_ patients: [Patient], _ connection: PostgresConnection) async throws -> [Patient] {
        guard !patients.isEmpty else { return patients }
        var groups: [String: [String]] = [:]
        for row in try await connection.query(
            "SELECT patientId, groupName FROM patientGroup WHERE patientId = ANY(\(patients.map { key($0.id) })) ORDER BY groupName",
            logger: logger
        ).collect() {
            let (patientId, name) = try row.decode((String, String).self)
            groups[patientId, default: []].append(name)
        }
        return patients.map { patient in
            var patient = patient
            patient.dataGroups = groups[key(patient.id)] ?? []
            return patient
        }
    }

    private static func patient(_ row: PostgresRow) throws -> Patient {
        let (
            id, teamId, givenName, familyName, dateOfBirth, sex, externalId, revision, archivedAt, scope, createdBy, createdAt, updatedAt
        ) =
            try row.decode((String, Int64, String, String, String?, String?, String?, Int32, Double?, String?, String, Double, Double).self)
        return Patient(
            id: UUID(uuidString: id) ?? UUID(), teamId: teamId,
            identification: PatientIdentification(
                givenName: givenName, familyName: familyName, dateOfBirth: dateOfBirth.flatMap(LocalDate.init(iso:)),
                sex: sex.flatMap(PatientIdentification.Sex.init(rawValue:)), externalId: externalId),
            revision: Int(revision), archivedAt: archivedAt.map(date), sharingScope: scope.flatMap(SharingScope.init(rawValue:)),
            createdBy: createdBy, createdAt: date(createdAt), updatedAt: date(updatedAt))
    }
}
