import Foundation
import IntakeCore

/// The bytes of what a store keeps of a case beyond its columns: what opened it, its visits, its
/// properties now and its conflicts. Answers are written as records write them (``RecordCodec``).
///
/// ```json
/// {"conflicts":[{"property":"phq2","records":["…","…"]}],
///  "opening":{"at":"…","collector":"amina","due":"2026-12-12","properties":{"phq2":{"integer":4}},"record":"…"},
///  "properties":{"phq2":{"integer":4}},
///  "visits":[{"arrival":2,"at":"…","base":1,"closes":false,"collector":"amina","due":null,"properties":{},"record":"…"}]}
/// ```
package enum CaseBody {
    package static func encode(_ stored: StoredCase) -> String {
        var writer = JSONWriter(capacity: 256 + stored.visits.count * 160)
        writer.beginObject()
        writer.key("conflicts")
        write(stored.conflicts, into: &writer)
        writer.key("opening")
        write(stored.opening, into: &writer)
        writer.key("erased")
        writer.bool(stored.erased)
        writer.key("properties")
        write(stored.properties, into: &writer)
        writer.key("statusChanges")
        writer.beginArray()
        for change in stored.statusChanges {
            writer.beginObject()
            writer.key("at")
            writer.string(Timestamp.string(from: change.at))
            writer.key("by")
            writer.string(change.by)
            writer.key("closed")
            writer.bool(change.closed)
            writer.endObject()
        }
        writer.endArray()
        writer.key("visits")
        writer.beginArray()
        for visit in stored.visits { write(visit, into: &writer) }
        writer.endArray()
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// What opened a case, as an object.
    package static func write(_ opening: CaseOpeningFacts, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("at")
        writer.string(Timestamp.string(from: opening.at))
        writer.key("collector")
        writer.string(opening.collector)
        writer.key("due")
        if let due = opening.due { writer.date(due) } else { writer.null() }
        writer.key("patient")
        RecordCodec.write(opening.patient, into: &writer)
        writer.key("properties")
        write(opening.properties, into: &writer)
        writer.key("record")
        writer.string(opening.recordId.uuidString.lowercased())
        writer.endObject()
    }

    /// A visit, as an object.
    package static func write(_ visit: CaseVisit, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("arrival")
        writer.integer(visit.arrivalRevision)
        writer.key("at")
        writer.string(Timestamp.string(from: visit.at))
        writer.key("base")
        writer.integer(visit.baseRevision)
        writer.key("closes")
        writer.bool(visit.closes)
        writer.key("collector")
        writer.string(visit.collector)
        writer.key("device")
        writer.string(visit.deviceId)
        writer.key("due")
        if let due = visit.due { writer.date(due) } else { writer.null() }
        writer.key("properties")
        write(visit.properties, into: &writer)
        writer.key("record")
        writer.string(visit.recordId.uuidString.lowercased())
        if visit.withdrawn {
            writer.key("withdrawn")
            writer.bool(true)
        }
        if visit.byHand {
            writer.key("byHand")
            writer.bool(true)
        }
        writer.endObject()
    }

    package static func opening(_ reader: inout JSONReader) throws(JSONReadError) -> CaseOpeningFacts {
        var opening = CaseOpeningFacts(recordId: UUID(), at: Date(timeIntervalSince1970: 0), collector: "", properties: [:], due: nil)
        try reader.object { key, reader throws(JSONReadError) in
            switch key {
            case "at": opening.at = try time(&reader)
            case "collector": opening.collector = try reader.string()
            case "due": opening.due = try date(&reader)
            case "patient": opening.patient = try RecordCodec.patient(&reader)
            case "properties": opening.properties = try properties(&reader)
            case "record": opening.recordId = try uuid(&reader)
            default: _ = try reader.skipValue()
            }
        }
        return opening
    }

    package static func visit(_ reader: inout JSONReader) throws(JSONReadError) -> CaseVisit {
        var visit = CaseVisit(
            recordId: UUID(), at: Date(timeIntervalSince1970: 0), collector: "", baseRevision: 1, arrivalRevision: 2,
            properties: [:], due: nil, closes: false)
        try reader.object { key, reader throws(JSONReadError) in
            switch key {
            case "arrival": visit.arrivalRevision = try reader.integer()
            case "at": visit.at = try time(&reader)
            case "base": visit.baseRevision = try reader.integer()
            case "closes": visit.closes = try reader.bool()
            case "collector": visit.collector = try reader.string()
            case "device": visit.deviceId = try reader.string()
            case "due": visit.due = try date(&reader)
            case "properties": visit.properties = try properties(&reader)
            case "record": visit.recordId = try uuid(&reader)
            case "withdrawn": visit.withdrawn = try reader.bool()
            case "byHand": visit.byHand = try reader.bool()
            default: _ = try reader.skipValue()
            }
        }
        return visit
    }

    /// `[{"property": "phq2", "records": ["…", "…"]}]`, as the body and the API write conflicts.
    package static func write(_ conflicts: [CaseConflict], into writer: inout JSONWriter) {
        writer.beginArray()
        for conflict in conflicts {
            writer.beginObject()
            writer.key("property")
            writer.string(conflict.property)
            writer.key("records")
            writer.beginArray()
            for id in conflict.recordIds { writer.string(id.uuidString.lowercased()) }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
    }

    /// Properties by name, in name order.
    package static func write(_ properties: [String: Answer], into writer: inout JSONWriter) {
        writer.beginObject()
        for name in properties.keys.sorted() {
            writer.key(name)
            RecordCodec.write(properties[name]!, into: &writer)
        }
        writer.endObject()
    }

    /// The parts of a stored case its body holds, read into `stored` (whose columns are read).
    package static func decode(_ body: String, into stored: inout StoredCase) throws(JSONReadError) {
        var result = stored
        try JSONReader.document(Array(body.utf8)) { reader throws(JSONReadError) in
            try reader.object { key, reader throws(JSONReadError) in
                switch key {
                case "conflicts":
                    try reader.array { _, reader throws(JSONReadError) in
                        var conflict = CaseConflict(property: "", recordIds: [])
                        try reader.object { key, reader throws(JSONReadError) in
                            switch key {
                            case "property": conflict.property = try reader.string()
                            case "records":
                                try reader.array { _, reader throws(JSONReadError) in conflict.recordIds.append(try uuid(&reader)) }
                            default: _ = try reader.skipValue()
                            }
                        }
                        result.conflicts.append(conflict)
                    }
                case "opening": result.opening = try opening(&reader)
                case "properties": result.properties = try properties(&reader)
                case "erased": result.erased = try reader.bool()
                case "statusChanges":
                    try reader.array { _, reader throws(JSONReadError) in
                        var change = CaseStatusChange(at: Date(timeIntervalSince1970: 0), closed: true, by: "")
                        try reader.object { key, reader throws(JSONReadError) in
                            switch key {
                            case "at": change.at = try time(&reader)
                            case "by": change.by = try reader.string()
                            case "closed": change.closed = try reader.bool()
                            default: _ = try reader.skipValue()
                            }
                        }
                        result.statusChanges.append(change)
                    }
                case "visits": try reader.array { _, reader throws(JSONReadError) in result.visits.append(try visit(&reader)) }
                default: _ = try reader.skipValue()
                }
            }
        }
        stored = result
    }

    package static func properties(_ reader: inout JSONReader) throws(JSONReadError) -> [String: Answer] {
        var values: [String: Answer] = [:]
        try reader.object { name, reader throws(JSONReadError) in values[name] = try RecordCodec.answer(&reader) }
        return values
    }

    package static func uuid(_ reader: inout JSONReader) throws(JSONReadError) -> UUID {
        guard let id = UUID(canonical: try reader.string()) else { throw reader.error("expected a UUID") }
        return id
    }

    package static func date(_ reader: inout JSONReader) throws(JSONReadError) -> LocalDate? {
        if reader.null() { return nil }
        guard let day = LocalDate(iso: try reader.string()) else { throw reader.error("expected a date") }
        return day
    }

    package static func time(_ reader: inout JSONReader) throws(JSONReadError) -> Date {
        guard let time = Timestamp.date(from: try reader.string()) else { throw reader.error("expected a time") }
        return time
    }
}
