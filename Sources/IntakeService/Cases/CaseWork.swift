import Foundation
import IntakeCore

/// What a complete record does to cases, worked out once, as the record is checked at ingest
/// (``CaseService/caseWork(of:questionnaire:)``), and kept on its row (`caseWork`): the case
/// service follows the change feed with it and reads no record again.
///
/// ```json
/// [{"open":"…","list":"follow-up","patientId":null,"assignee":"amina","opening":{…}},
///  {"visit":"…","list":"follow-up","made":{…}}]
/// ```
/// The opening and the visit are written as a case's body writes them (``CaseBody``). A record
/// stored before its server kept this (schema v39 for SQLite, v36 for PostgreSQL) and not yet
/// read by the case service is marked ``derive``: the service reads that record once.
enum CaseWorkCodec {
    /// The mark of a record whose cases are worked out from the record itself.
    static let derive = "derive"

    /// Nil when the record does nothing to cases (its row keeps NULL).
    static func encode(_ work: [CaseService.Work]) -> String? {
        guard !work.isEmpty else { return nil }
        var writer = JSONWriter(capacity: 512 * work.count)
        writer.beginArray()
        for item in work {
            writer.beginObject()
            switch item {
            case .open(let id, let list, let patientId, let facts, let assignee):
                writer.key("open")
                writer.string(id.uuidString.lowercased())
                writer.key("list")
                writer.string(list)
                writer.key("patientId")
                if let patientId { writer.string(patientId.uuidString.lowercased()) } else { writer.null() }
                writer.key("assignee")
                if let assignee { writer.string(assignee) } else { writer.null() }
                writer.key("opening")
                CaseBody.write(facts, into: &writer)
            case .visit(let id, let list, let visit):
                writer.key("visit")
                writer.string(id.uuidString.lowercased())
                writer.key("list")
                writer.string(list)
                writer.key("made")
                CaseBody.write(visit, into: &writer)
            case .openerDeleted(let id, let recordId):
                // Not made at ingest; written for completeness (a deletion is read from the feed).
                writer.key("erase")
                writer.string(id.uuidString.lowercased())
                writer.key("record")
                writer.string(recordId.uuidString.lowercased())
            case .visitWithdrawn(let id, let recordId):
                // Likewise.
                writer.key("withdraw")
                writer.string(id.uuidString.lowercased())
                writer.key("record")
                writer.string(recordId.uuidString.lowercased())
            }
            writer.endObject()
        }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func decode(_ text: String) throws(JSONReadError) -> [CaseService.Work] {
        var work: [CaseService.Work] = []
        try JSONReader.document(Array(text.utf8)) { reader throws(JSONReadError) in
            try reader.array { _, reader throws(JSONReadError) in
                var open: UUID?, visitOf: UUID?, erase: UUID?, withdraw: UUID?, record: UUID?
                var list = "", patientId: UUID?, assignee: String?
                var opening: CaseOpeningFacts?, visit: CaseVisit?
                try reader.object { key, reader throws(JSONReadError) in
                    switch key {
                    case "open": open = try CaseBody.uuid(&reader)
                    case "visit": visitOf = try CaseBody.uuid(&reader)
                    case "erase": erase = try CaseBody.uuid(&reader)
                    case "withdraw": withdraw = try CaseBody.uuid(&reader)
                    case "record": record = try CaseBody.uuid(&reader)
                    case "list": list = try reader.string()
                    case "patientId": patientId = reader.null() ? nil : try CaseBody.uuid(&reader)
                    case "assignee": assignee = reader.null() ? nil : try reader.string()
                    case "opening": opening = try CaseBody.opening(&reader)
                    case "made": visit = try CaseBody.visit(&reader)
                    default: _ = try reader.skipValue()
                    }
                }
                if let open, let opening {
                    work.append(.open(id: open, list: list, patientId: patientId, facts: opening, assignee: assignee))
                } else if let visitOf, let visit {
                    work.append(.visit(id: visitOf, list: list, visit))
                } else if let erase, let record {
                    work.append(.openerDeleted(id: erase, recordId: record))
                } else if let withdraw, let record {
                    work.append(.visitWithdrawn(id: withdraw, recordId: record))
                } else {
                    throw reader.error("expected an opening, a visit, an erasure or a withdrawal")
                }
            }
        }
        return work
    }
}
