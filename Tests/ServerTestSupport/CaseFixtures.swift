import Foundation
import IntakeCore
import Testing

/// Records that open and visit cases of the bundled screening and follow-up, for the tests of
/// every door that reads cases (the API, ODK's, REDCap's).
package enum CaseFixtures {
    /// A screening record that opens a case (flagged) or does not.
    package static func screening(_ server: TestServer, flagged: Bool, from seed: UInt64) -> PatientResponse {
        var seed = seed
        while true {
            let record = server.record(seed: seed)
            if !server.questionnaire.caseEffects(of: record).opened.isEmpty == flagged { return record }
            seed += 1
        }
    }

    /// A complete follow-up of `stored` (as pulled), collected by `collector`, ending in `outcome`.
    package static func followUp(
        _ q: Questionnaire, of stored: [String: Any], collector: String, seed: UInt64, outcome: String, phq: (String, String)
    ) throws -> PatientResponse {
        var generator = SampleGenerator(questionnaire: q, seed: seed, collector: collector)
        var record = generator.next()
        let text = try #require(stored["id"] as? String)
        let id = try #require(UUID(uuidString: text))
        let revision = try #require(stored["revision"] as? Int)
        let properties = try #require(stored["properties"] as? [String: Any])
        var values: [String: Answer] = [:]
        for (name, value) in properties {
            let data = try JSONSerialization.data(withJSONObject: value)
            let wrapped =
                #"{"format":1,"id":"00000000-0000-4000-8000-000000000000","questionnaire":{"id":"x","version":"y"},"patient":{},"answers":{"1":{"1":"#
                + String(decoding: data, as: UTF8.self)
                + #"}},"status":"draft","collector":"c","deviceId":"d","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}"#
            values[name] = try RecordCodec.decode(Array(wrapped.utf8)).answers[1]?[1]
        }
        record.caseLink = q.cases.follows!.link(caseId: id, revision: revision, values: values)
        func set(_ id: String, _ answer: Answer?) { record[q.question(id: id)!.position] = answer }
        set("contact", .choice("home"))
        set("phq_interest", .choice(phq.0))
        set("phq_down", .choice(phq.1))
        set("self_harm", .yesNo(false))
        set("referral", .choice("not_needed"))
        set("outcome", .choice(outcome))
        set("next_visit", outcome == "continue" ? .date(LocalDate(iso: "2099-01-01")!) : nil)
        set("visit_date", .date(LocalDate.today(in: TimeZone(identifier: "UTC")!)))
        record = q.calculated(record, today: LocalDate.today(in: TimeZone(identifier: "UTC")!))
        #expect(Validator(questionnaire: q).validate(record).filter { $0.severity == .error }.isEmpty)
        return record
    }
}
