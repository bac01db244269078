import Foundation
import Hummingbird
import IntakeCore
import IntakeExport
import IntakeServer
import IntakeService

extension REDCapRoutes {
    /// `content=record` without `data`: the records the export policy lets the caller read (a
    /// coordinator their team's, a researcher what consent shares), de-identified, as the rows
    /// of REDCap's flat format.
    func exportRecords(_ form: Form, questionnaireId: String, user: User, format: ReplyFormat) async throws -> Response {
        let reach: ExportReach
        switch RecordAccessPolicy.export(
            by: user, includeIdentifiers: false, unlinkedRecordsReachResearchers: services.configuration.unlinkedRecordsReachResearchers)
        {
        case .success(let allowed): reach = allowed
        case .failure(.noTeam):
            throw REDCapError(status: .forbidden, message: "Your account belongs to no team; ask an admin to add it to one.")
        case .failure:
            throw REDCapError(
                status: .forbidden, message: "You do not have API Export privileges (coordinators and researchers export records).")
        }
        _ = try await plan(questionnaireId, for: user)  // the questionnaire is one this token may see
        let values: REDCapRows.Values
        switch form["rawOrLabel"]?.lowercased() ?? "raw" {
        case "raw": values = .raw
        case "label": values = .labels(checkboxLabels: form["exportCheckboxLabel"]?.lowercased() == "true")
        default: throw REDCapError.bad("rawOrLabel is raw or label.")
        }
        if let headers = form["rawOrLabelHeaders"], headers.lowercased() != "raw" {
            throw REDCapError.bad("This server exports raw column headers only (rawOrLabelHeaders=raw).")
        }
        let filter = try form["filterLogic"].flatMap { text -> REDCapLogic? in
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            do throws(REDCapLogic.Unsupported) { return try REDCapLogic.parse(text) } catch {
                throw REDCapError.bad("The filterLogic is not supported: \(error.message).")
            }
        }
        let begin = try form["dateRangeBegin"].flatMap { try Self.time($0, name: "dateRangeBegin") }
        let end = try form["dateRangeEnd"].flatMap { try Self.time($0, name: "dateRangeEnd") }

        // Records by id, or by the name they were imported with (made into the same id, for the
        // caller's team): the store reads those alone.
        let only = form.list("records").map { names in
            Set(names.map { REDCapImport.recordId($0, questionnaireId: questionnaireId, teamId: user.teamId ?? 0) })
        }
        var request = ExportService.Request(questionnaireId: questionnaireId, teamId: reach.teamId, consent: reach.consent)
        if let only, only.count <= ExportQuery.maxRecordIds { request.recordIds = Array(only) }
        let prepared = try await services.exports.prepare(request)
        let followUps = try await followUps(of: prepared.plan, for: user)
        let project = REDCapProject(plan: prepared.plan, followUps: followUps)
        // Fields asked for (a checkbox by its base name), always with the record id; forms add theirs.
        var wanted: Set<String>?
        let askedFields = form.list("fields")
        let askedForms = form.list("forms")
        if askedFields != nil || askedForms != nil {
            var names: Set<String> = [REDCapProject.recordIdField]
            let known = Set(project.fields.map(\.name)).union(project.instruments.map { "\($0.name)_complete" })
            for name in askedFields ?? [] {
                guard known.contains(name) else {
                    throw REDCapError.bad("The following values in the parameter fields are not valid: \(name.prefix(100))")
                }
                names.insert(name)
            }
            for name in askedForms ?? [] {
                guard project.instruments.contains(where: { $0.name == name }) else {
                    throw REDCapError.bad("The following values in the parameter forms are not valid: \(name.prefix(100))")
                }
                names.formUnion(project.fields(of: name).map(\.name))
                names.insert("\(name)_complete")
            }
            wanted = names
        }
        if let filter {
            let columns = Set(REDCapRows(project: project, versions: [:]).columns(fields: nil))
            if let unknown = filter.fields.first(where: { !columns.contains($0) }) {
                throw REDCapError.bad("The filterLogic names a field this project does not have: \(unknown.prefix(100)).")
            }
            let repeated = Set(project.fields.filter { $0.repeatKey != nil || $0.followUp != nil }.flatMap { $0.exportNames.map(\.name) })
            if let field = filter.fields.first(where: { repeated.contains($0) }) {
                throw REDCapError.bad(
                    "The filterLogic names \(field.prefix(100)), a field of a repeating instrument; this server filters on the record's own fields only."
                )
            }
        }
        // The visits of the cases the records opened: each follow-up's records as its own export
        // holds them for this caller (its consent and de-identification), by the opening record.
        let visitIds = try await services.exports.caseVisits(
            teamId: reach.teamId, lists: Set(followUps.flatMap { $0.versions.compactMap(\.cases.follows?.list) }))
        var visitOf: [UUID: ExportRecord] = [:]
        var followUpVersions: [String: Questionnaire] = [:]
        if !visitIds.isEmpty {
            let wanted = Set(visitIds.values.joined())
            for followUp in followUps {
                for version in followUp.versions { followUpVersions[REDCapRows.visitKey(version.reference)] = version }
                let visits = try await services.exports.prepare(
                    ExportService.Request(questionnaireId: followUp.questionnaireId, teamId: reach.teamId, consent: reach.consent))
                let lines = JSONLinesFormatter(plan: visits.plan)
                let pager = services.exports.pager(visits, formats: [.jsonLines])
                while let page = try await pager.next() {
                    for input in page {
                        guard let record = input.record, wanted.contains(record.record.id) else { continue }
                        let line = try lines.row(record).trimmingCharacters(in: .whitespacesAndNewlines)
                        visitOf[record.record.id] = try ExportRecord(jsonLine: Data(line.utf8))
                    }
                }
            }
        }
        try await services.audit.record(
            .export, by: user.username,
            details: [
                "format": "redcap", "questionnaire": questionnaireId, "via": "redcap", "records": String(prepared.count),
                "visits": String(visitOf.count),
            ])
        var rowsOf = REDCapRows(
            project: project, versions: Dictionary(prepared.plan.versions.map { ($0.version, $0) }, uniquingKeysWith: { a, _ in a }))
        rowsOf.followUpVersions = followUpVersions
        let allColumns = rowsOf.columns(fields: nil)
        let columns = rowsOf.columns(fields: wanted)
        let formatter = JSONLinesFormatter(plan: prepared.plan)
        let pager = services.exports.pager(prepared, formats: [.jsonLines])
        var out: [[String: String]] = []
        while let page = try await pager.next() {
            for input in page {
                guard let record = input.record else { continue }
                // The line a JSON Lines export writes, read back: its values are the rows'.
                let line = try formatter.row(record).trimmingCharacters(in: .whitespacesAndNewlines)
                let shown = try ExportRecord(jsonLine: Data(line.utf8))
                if let only, !only.contains(shown.record.id) { continue }
                let changed = shown.record.updatedAt
                if let begin, changed < begin { continue }
                if let end, changed > end { continue }
                let visits = (visitIds[shown.record.id] ?? []).compactMap { visitOf[$0] }
                let rows = rowsOf.rows(shown, visits: visits, columns: allColumns, values: .raw)
                if let filter, let base = rows.first, !filter.holds(base) { continue }
                let shownRows: [[String: String]]
                if case .raw = values {
                    shownRows = rows
                } else {
                    shownRows = rowsOf.rows(shown, visits: visits, columns: allColumns, values: values)
                }
                for row in shownRows {
                    // A repeat's row only when it has any of the fields asked for.
                    if let form = row["redcap_repeat_instrument"], !form.isEmpty, wanted != nil,
                        !project.fields(of: form).contains(where: { field in field.exportNames.contains { columns.contains($0.name) } })
                    {
                        continue
                    }
                    out.append(row)
                }
            }
        }
        return Self.rows(out.map { row in columns.map { ($0, row[$0] ?? "") } }, format: format, columns: columns)
    }

    /// Rows of a record export: an empty export is `[]` (or a CSV header alone).
    static func rows(_ rows: [[(String, String)]], format: ReplyFormat, columns: [String]) -> Response {
        if format == .csv, rows.isEmpty { return reply(Array(CSV.line(columns).utf8), type: "text/csv; charset=utf-8") }
        return Self.rows(rows, format: format)
    }

    /// `dateRangeBegin` / `dateRangeEnd`: `YYYY-MM-DD HH:MM:SS`, taken as UTC.
    static func time(_ text: String, name: String) throws -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return nil }
        let iso = trimmed.count == 10 ? trimmed + "T00:00:00Z" : trimmed.replacingOccurrences(of: " ", with: "T") + "Z"
        guard let date = Timestamp.date(from: iso) else { throw REDCapError.bad("\(name) is a time: YYYY-MM-DD HH:MM:SS.") }
        return date
    }

    /// `content=record` with `data`: flat rows as records. A `record_id` the caller may edit is
    /// edited (as `PUT /v1/records/{id}` would), any other is a new record; every one is checked
    /// before any is stored, so an import with a problem stores nothing (as REDCap's).
    func importRecords(_ form: Form, questionnaireId: String, user: User, _ context: IntakeRequestContext) async throws -> Response {
        // The action's row admitted a team's field worker or coordinator; the records are their team's.
        guard let teamId = user.teamId else {
            throw REDCapError(
                status: .forbidden,
                message: "You do not have API Import/Update privileges (field workers and coordinators of a team send records).")
        }
        let dataFormat = (form["format"] ?? "json").lowercased()
        guard dataFormat == "json" || dataFormat == "csv" else {
            throw REDCapError.bad("Records are imported as JSON or CSV here: send format=json or format=csv.")
        }
        if let behaviour = form["overwriteBehavior"], !["normal", "overwrite"].contains(behaviour) {
            throw REDCapError.bad("overwriteBehavior is normal or overwrite.")
        }
        if form["forceAutoNumber"]?.lowercased() == "true" {
            throw REDCapError.bad(
                "forceAutoNumber is not supported: give each record its record_id (content=generateNextRecordName gives a new one).")
        }
        let returnContent = form["returnContent"] ?? "count"
        guard ["count", "ids", "nothing"].contains(returnContent) else { throw REDCapError.bad("returnContent is count, ids or nothing.") }
        let plan = try await plan(questionnaireId, for: user)
        let project = REDCapProject(plan: plan, followUps: try await followUps(of: plan, for: user))
        let newest = plan.versions[plan.versions.count - 1]
        let rows = dataFormat == "csv" ? try Self.csvRows(form["data"] ?? "") : try Self.importRows(form["data"] ?? "")
        let importer = REDCapImport(project: project, questionnaire: newest, teamId: teamId)
        let imported: [REDCapImport.Imported]
        do { imported = try importer.records(rows) } catch { throw REDCapError.bad(error.message) }
        guard !imported.isEmpty else { throw REDCapError.bad("There were no records in the data.") }
        let overwrite = form["overwriteBehavior"] == "overwrite"

        // Each record as it would be stored: over the stored one the caller may edit, or new.
        var refused: [String] = []
        var planned: [(name: String, existing: StoredRecord?, record: PatientResponse)] = []
        for entry in imported {
            var existing: StoredRecord?
            do {
                existing = try await services.access.record(entry.id, for: .edit, by: user)
            } catch let error as ServiceError where error.kind == .notFound {
                existing = nil  // new (or another team's id, which the store refuses below)
            } catch let error as ServiceError {
                refused.append("\(entry.name): \(error.description)")
                continue
            }
            if let existing, existing.record.questionnaire != newest.reference {
                refused.append(
                    "\(entry.name): it holds answers to version \(existing.record.questionnaire.version) of the questionnaire; edit it with intake"
                )
                continue
            }
            let base =
                existing?.record
                ?? PatientResponse(
                    id: entry.id, questionnaire: newest.reference, status: .draft, collector: user.username, deviceId: "redcap-api")
            do {
                planned.append((entry.name, existing, try importer.applied(entry, to: base, overwrite: overwrite)))
            } catch {
                refused.append(error.message)
            }
        }
        for (name, existing, record) in planned {
            if let problem = try await services.records.problems(of: record, teamId: teamId, editing: existing, uploadsTeam: teamId) {
                refused.append(Self.refusal(name, problem.code, problem.message, problem.issues))
            }
        }
        guard refused.isEmpty else {
            throw REDCapError.bad("No record was stored; fix these and send the data again: " + refused.prefix(20).joined(separator: "; "))
        }

        // Stored: the edits one by one, the new records together.
        var stored: [String] = []
        var new: [(name: String, record: PatientResponse)] = []
        for (name, existing, record) in planned {
            guard let existing else {
                new.append((name, record))
                continue
            }
            switch try await services.records.edit(
                record, of: existing, baseRevision: existing.revision, savedBy: user.username, uploadsTeam: teamId, deviceId: "redcap-api")
            {
            case .saved(.updated), .unchanged: stored.append(name)
            case .saved(.stale): refused.append("\(name): it changed while this import ran; send it again")
            case .saved(.locked):
                refused.append("\(name): a reviewer approved and locked it; a coordinator reopens it first (intake review reopen)")
            case .saved(.notFound), .saved(.deleted): refused.append("\(name): it was deleted while this import ran")
            case .invalid(let code, let message, let issues): refused.append(Self.refusal(name, code, message, issues))
            }
        }
        let results =
            new.isEmpty
            ? []
            : try await services.records.ingest(
                new.map(\.record), owner: RecordOwner(teamId: teamId, username: user.username, deviceId: "redcap-api"))
        for ((name, _), result) in zip(new, results) {
            switch result {
            case .stored(.created, _), .stored(.duplicate, _): stored.append(name)
            case .stored(.conflict, _), .stored(.taken, _):
                refused.append("\(name): the id is used by a record you may not edit; give the record another record_id")
            case .stored(.deleted, _): refused.append("\(name): this record was deleted and cannot be sent again")
            case .invalid(let code, let message, let issues): refused.append(Self.refusal(name, code, message, issues))
            }
        }
        if !refused.isEmpty {
            throw REDCapError.bad("\(stored.count) record(s) were stored; these were not: " + refused.prefix(20).joined(separator: "; "))
        }
        switch returnContent {
        case "ids":
            return Self.json { writer in
                writer.beginArray()
                for name in stored { writer.string(name) }
                writer.endArray()
            }
        case "nothing": return Self.reply([], type: "application/json; charset=utf-8")
        default:
            return Self.json { writer in
                writer.beginObject()
                writer.key("count")
                writer.integer(stored.count)
                writer.endObject()
            }
        }
    }

    /// Why a record was not taken: which fields, and what is wrong with them (never a value).
    static func refusal(_ id: String, _ code: String, _ message: String, _ issues: [ValidationIssue]) -> String {
        let said = issues.filter { $0.severity == .error }.prefix(5).map { "\($0.questionId ?? $0.field ?? "record"): \($0.message)" }
        return "\(id): \(code): \(message)" + (said.isEmpty ? "" : " (\(said.joined(separator: "; ")))")
    }

    /// The `data` of a CSV import (PyCap sends a DataFrame so): a header, then a row per record
    /// (and repeat instance); a pandas index column comes first, named `record_id`.
    static func csvRows(_ text: String) throws -> [[String: String]] {
        let records: [(line: Int, fields: [String])]
        do { records = try CSVReader.records(text) } catch {
            throw REDCapError.bad("The data being imported is not valid CSV: line \(error.line): \(error.message).")
        }
        guard let header = records.first?.fields, !header.isEmpty else {
            throw REDCapError.bad("The CSV data has no header row naming the fields.")
        }
        guard records.count <= 10_001 else {
            throw REDCapError.bad("At most 10000 rows are imported at once; send the rest in another request.")
        }
        guard Set(header).count == header.count else { throw REDCapError.bad("The CSV header names a field twice.") }
        return try records.dropFirst().map { record in
            guard record.fields.count == header.count else {
                throw REDCapError.bad(
                    "Line \(record.line) of the CSV data has \(record.fields.count) fields; the header has \(header.count).")
            }
            return Dictionary(uniqueKeysWithValues: zip(header, record.fields))
        }
    }

    /// The `data` of an import: a JSON array of objects whose values are text (numbers are taken as their text).
    static func importRows(_ text: String) throws -> [[String: String]] {
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8)), let array = parsed as? [Any] else {
            throw REDCapError.bad(
                "The data being imported is not valid JSON: send a JSON array of objects, one per record (and repeat instance).")
        }
        guard array.count <= 10_000 else {
            throw REDCapError.bad("At most 10000 rows are imported at once; send the rest in another request.")
        }
        return try array.enumerated().map { index, item in
            guard let object = item as? [String: Any] else { throw REDCapError.bad("Row \(index + 1) of the data is not an object.") }
            var row: [String: String] = [:]
            for (key, value) in object {
                switch value {
                case let text as String: row[key] = text
                case let number as NSNumber: row[key] = number.stringValue
                case is NSNull: row[key] = ""
                default: throw REDCapError.bad("Row \(index + 1): \(key.prefix(100)) is not text.")
                }
            }
            return row
        }
    }
}
