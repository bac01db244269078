import Foundation
import GRDB
import IntakeCore
import IntakeService

extension SQLiteRecordStore {
    public func registerPatients(_ patients: [NewPatient]) async throws -> [PatientOutcome] {
        try await database.write { db in
            try patients.map { new in
                if let current = try Self.patient(db, id: new.id) {
                    return current.identification == new.identification && current.teamId == new.teamId ? .existing(current) : .idTaken
                }
                if let external = new.identification.externalId,
                    let holder = try String.fetchOne(db, sql: "SELECT id FROM patient WHERE externalId = ?", arguments: [external])
                {
                    return .externalIdTaken(existing: UUID(uuidString: holder)!)
                }
                let person = new.identification
                try db.execute(
                    sql: """
                        INSERT INTO patient (id, teamId, givenName, familyName, givenKey, familyKey, dateOfBirth, sex, externalId, revision,
                                             createdBy, createdAt, updatedAt)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)
                        """,
                    arguments: [
                        Self.key(new.id), new.teamId, person.givenName, person.familyName, NameKey.lookupKey(person.givenName),
                        NameKey.lookupKey(person.familyName),
                        person.dateOfBirth?.description, person.sex?.rawValue, person.externalId, new.createdBy,
                        Self.timestamp(new.createdAt),
                        Self.timestamp(new.createdAt),
                    ])
                return .created(try Self.patient(db, id: new.id)!)
            }
        }
    }

    public func patient(id: UUID) async throws -> Patient? {
        try await database.read { db in try Self.patient(db, id: id) }
    }

    public func findPatients(_ query: PatientQuery) async throws -> [Patient] {
        try await database.read { db in
            var conditions: [String] = []
            var arguments: StatementArguments = []
            if !query.includeArchived { conditions.append("archivedAt IS NULL") }
            if let team = query.teamId {
                conditions.append("teamId = ?")
                arguments += [team]
            }
            if let external = query.externalId {
                conditions.append("externalId = ?")
                arguments += [external]
            }
            if let birth = query.dateOfBirth {
                conditions.append("dateOfBirth = ?")
                arguments += [birth.description]
            }
            if let name = query.name {
                let prefix = PatientNamePattern.prefix(NameKey.lookupKey(name))
                conditions.append(
                    """
                    (familyKey LIKE ? ESCAPE '\\' OR givenKey LIKE ? ESCAPE '\\' OR (givenKey || ' ' || familyKey) LIKE ? ESCAPE '\\'
                     OR (familyKey || ' ' || givenKey) LIKE ? ESCAPE '\\')
                    """)
                arguments += [prefix, prefix, prefix, prefix]
            }
            if let after = query.after {
                conditions.append("id > ?")
                arguments += [Self.key(after)]
            }
            if let prefix = query.idPrefix {
                conditions.append("id LIKE ?")
                arguments += [prefix + "%"]
            }
            let condition = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            let order = query.byId ? " ORDER BY id" : " ORDER BY familyKey, givenKey, id"
            return try Self.withGroups(
                try Row.fetchAll(
                    db, sql: "SELECT * FROM patient" + condition + order + " LIMIT ?", arguments: arguments + [query.limit]
                ).map(Self.patient), db)
        }
    }

    public func updatePatient(
        id: UUID, baseRevision: Int, identification person: PatientIdentification, groups: DataGroupChange, at time: Date
    ) async throws -> PatientChangeOutcome {
        try await database.write { db in
            if let refusal = PatientRules.change(try Self.patient(db, id: id), baseRevision: baseRevision) { return refusal }
            if let external = person.externalId,
                let holder = try String.fetchOne(
                    db, sql: "SELECT id FROM patient WHERE externalId = ? AND id <> ?", arguments: [external, Self.key(id)])
            {
                return .externalIdTaken(existing: UUID(uuidString: holder)!)
            }
            if !groups.isEmpty {
                let defined = try String.fetchAll(db, sql: "SELECT name FROM dataGroup ORDER BY name")
                if let refusal = PatientRules.groups(groups, defined: defined) { return refusal }
            }
            try db.execute(
                sql: """
                    UPDATE patient SET givenName = ?, familyName = ?, givenKey = ?, familyKey = ?, dateOfBirth = ?, sex = ?, externalId = ?,
                        revision = revision + 1, updatedAt = ?
                    WHERE id = ?
                    """,
                arguments: [
                    person.givenName, person.familyName, NameKey.lookupKey(person.givenName), NameKey.lookupKey(person.familyName),
                    person.dateOfBirth?.description, person.sex?.rawValue, person.externalId, Self.timestamp(time), Self.key(id),
                ])
            for name in groups.remove {
                try db.execute(sql: "DELETE FROM patientGroup WHERE patientId = ? AND groupName = ?", arguments: [Self.key(id), name])
            }
            for name in groups.add {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO patientGroup (patientId, groupName) VALUES (?, ?)", arguments: [Self.key(id), name])
            }
            return .changed(try Self.patient(db, id: id)!)
        }
    }

    public func createDataGroup(_ group: DataGroup) async throws -> Bool {
        try await database.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO dataGroup (name, description, createdBy, createdAt) VALUES (?, ?, ?, ?)",
                arguments: [group.name, group.description, group.createdBy, Self.timestamp(group.createdAt)])
            return db.changesCount > 0
        }
    }

    public func dataGroups() async throws -> [DataGroup] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT g.*, (SELECT COUNT(*) FROM patientGroup pg WHERE pg.groupName = g.name) AS patients
                    FROM dataGroup g ORDER BY g.name
                    """
            ).map { row in
                DataGroup(
                    name: row["name"], description: row["description"], createdBy: row["createdBy"], createdAt: Self.date(row["createdAt"]),
                    patients: row["patients"])
            }
        }
    }

    public func deleteDataGroup(name: String) async throws -> DataGroupDeletion {
        try await database.write { db in
            let patients = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM patientGroup WHERE groupName = ?", arguments: [name]) ?? 0
            guard patients == 0 else { return .inUse(patients: patients) }
            try db.execute(sql: "DELETE FROM dataGroup WHERE name = ?", arguments: [name])
            return db.changesCount > 0 ? .deleted : .notFound
        }
    }

    public func setPatientArchived(id: UUID, _ archived: Bool, at time: Date) async throws -> Patient? {
        try await database.write { db in
            try db.execute(
                sql: """
                    UPDATE patient SET archivedAt = CASE WHEN ? THEN COALESCE(archivedAt, ?) ELSE NULL END,
                        revision = revision + (CASE WHEN (archivedAt IS NULL) = ? THEN 1 ELSE 0 END), updatedAt = ?
                    WHERE id = ?
                    """,
                arguments: [archived, Self.timestamp(time), archived, Self.timestamp(time), Self.key(id)])
            return try Self.patient(db, id: id)
        }
    }

    public func recordConsent(_ consent: Consent) async throws -> Patient? {
        try await database.write { db in
            guard let patient = try Self.patient(db, id: consent.patientId) else { return nil }
            // The patient's records count as changed, so the next incremental export brings them
            // to whoever may now receive them; the consent takes its place after those changes,
            // so an export can tell whether it came before or after.
            let records = try String.fetchAll(
                db, sql: "SELECT id FROM record WHERE patientId = ? ORDER BY changeSeq", arguments: [Self.key(consent.patientId)])
            for record in records {
                try db.execute(
                    sql: """
                        UPDATE record SET changeSeq = (SELECT COALESCE(MAX(changeSeq), 0) + 1 FROM record),
                            teamSeq = (SELECT COALESCE(MAX(t.teamSeq), 0) + 1 FROM record t WHERE t.teamId = ?)
                        WHERE id = ?
                        """, arguments: [patient.teamId, record])
            }
            try db.execute(
                sql: """
                    INSERT INTO consent (patientId, scope, method, recordedBy, recordedAt, changeSeq, teamSeq)
                    VALUES (?, ?, ?, ?, ?, (SELECT COALESCE(MAX(changeSeq), 0) FROM record),
                            (SELECT COALESCE(MAX(teamSeq), 0) FROM record WHERE teamId = ?))
                    """,
                arguments: [
                    Self.key(consent.patientId), consent.scope.rawValue, consent.method.rawValue, consent.recordedBy,
                    Self.timestamp(consent.recordedAt),
                    patient.teamId,
                ])
            try db.execute(
                sql: "UPDATE patient SET sharingScope = ?, updatedAt = ? WHERE id = ?",
                arguments: [consent.scope.rawValue, Self.timestamp(consent.recordedAt), Self.key(consent.patientId)])
            _ = try Self.appendAudit([AuditEntry.consentChange(consent)], db)
            return try Self.patient(db, id: consent.patientId)
        }
    }

    public func consentHistory(patientId: UUID) async throws -> [Consent] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM consent WHERE patientId = ? ORDER BY id", arguments: [Self.key(patientId)]).map {
                row in
                Consent(
                    patientId: patientId, scope: SharingScope(rawValue: row["scope"]) ?? .noSharing,
                    method: ConsentMethod(rawValue: row["method"]) ?? .verbal, recordedBy: row["recordedBy"],
                    recordedAt: Self.date(row["recordedAt"]))
            }
        }
    }

    static func patient(_ db: Database, id: UUID) throws -> Patient? {
        guard var patient = try Row.fetchOne(db, sql: "SELECT * FROM patient WHERE id = ?", arguments: [key(id)]).map(patient) else {
            return nil
        }
        patient.dataGroups = try String.fetchAll(
            db, sql: "SELECT groupName FROM patientGroup WHERE patientId = ? ORDER BY groupName", arguments: [key(id)])
        return patient
    }

    /// The patients with their data groups (one query for all of them).
    static func withGroups(_ patients: [Patient], _ db: Database) throws -> [Patient] {
        guard !patients.isEmpty else { return patients }
        var groups: [String: [String]] = [:]
        let ids = patients.map { key($0.id) }
        for row in try Row.fetchAll(
            db,
            sql: "SELECT patientId, groupName FROM patientGroup WHERE patientId IN (" + ids.map { _ in "?" }.joined(separator: ", ")
                + ") ORDER BY groupName",
            arguments: StatementArguments(ids))
        {
            groups[row["patientId"], default: []].append(row["groupName"])
        }
        return patients.map { patient in
            var patient = patient
            patient.dataGroups = groups[key(patient.id)] ?? []
            return patient
        }
    }

    static func patient(_ row: Row) -> Patient {
        Patient(
            id: UUID(uuidString: row["id"])!, teamId: row["teamId"],
            identification: PatientIdentification(
                givenName: row["givenName"], familyName: row["familyName"],
                dateOfBirth: (row["dateOfBirth"] as String?).flatMap(LocalDate.init(iso:)),
                sex: (row["sex"] as String?).flatMap(PatientIdentification.Sex.init(rawValue:)), externalId: row["externalId"]),
            revision: row["revision"], archivedAt: (row["archivedAt"] as Double?).map(date),
            sharingScope: (row["sharingScope"] as String?).flatMap(SharingScope.init(rawValue:)), createdBy: row["createdBy"],
            createdAt: date(row["createdAt"]), updatedAt: date(row["updatedAt"]))
    }
}
