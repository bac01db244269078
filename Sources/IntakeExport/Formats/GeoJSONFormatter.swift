import IntakeCore

/// The geopoint answers as a GeoJSON FeatureCollection (RFC 7946), one Point feature per answer:
/// coordinates `[longitude, latitude]` (and altitude when known), with the record, its patient
/// key, its version, the question and the accuracy as properties, for QGIS or a web map. Like the
/// CSV files, it leaves out hidden answers and the questions the export leaves out (a place
/// marked `identifying` is left out of de-identified exports).
public final class GeoJSONFormatter: ExportFormatter {
    let plan: ExportPlan
    private var features = 0

    public init(plan: ExportPlan) {
        self.plan = plan
    }

    public func header() -> String { "{\"type\":\"FeatureCollection\",\"features\":[" }

    public func row(_ item: ExportRecord) throws(ExportError) -> String {
        let record = item.record
        let layout = try plan.layout(for: record.questionnaire)
        let hidden = layout.questionnaire.hiddenPositions(in: record)
        var out = ""
        for (position, answer) in record.allAnswers where !hidden.contains(position) {
            guard case .geopoint(let point) = answer, let question = layout.questionnaire.question(at: position),
                question.type == .geopoint, !plan.leavesOut(question)
            else { continue }
            var coordinates: [OrderedJSON] = [.number(point.longitude), .number(point.latitude)]
            if let altitude = point.altitude { coordinates.append(.number(altitude)) }
            var properties: [(String, OrderedJSON)] = [
                ("record_id", .string(record.id.uuidString.lowercased())),
                ("questionnaire_version", .string(record.questionnaire.version)),
                ("question_id", .string(question.key)),
            ]
            if let key = item.patientKey { properties.insert(("patient_key", .string(key)), at: 1) }
            if let accuracy = point.accuracy { properties.append(("accuracy", .number(accuracy))) }
            out += features == 0 ? "\n" : ",\n"
            features += 1
            OrderedJSON.object([
                ("type", .string("Feature")),
                ("geometry", .object([("type", .string("Point")), ("coordinates", .array(coordinates))])),
                ("properties", .object(properties)),
            ]).write(into: &out)
        }
        return out
    }

    public func footer() -> String { "\n]}\n" }
}
