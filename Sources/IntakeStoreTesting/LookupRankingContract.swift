import Foundation
import IntakeCore
import IntakeService
import Testing

/// The lookup ranking, held to a plain reading of its definition over every record.
public enum LookupRankingContract {
    static let families = [
        "Haddad", "Hadid", "Addo", "Osman", "Osmani", "Ben Osman", "Şahin", "Sahinoglu", "Ng", "Al_Amin", "الأحمد", "الاحمد", "أحمدي",
    ]
    static let givens = ["Amina", "Amin", "Yasmin", "Mina", "Ali", "Alia", "Omar"]

    /// The definition: exact 40/30, prefix 25/20, substring (3+ letters) 10/8, date of birth 30,
    /// external id 50; by score, then most recent, then id.
    static func expected(_ records: [(PatientResponse, Date)], _ query: LookupQuery) -> [(UUID, Int)] {
        func tier(_ key: String, _ asked: String?, _ weights: (Int, Int, Int)) -> Int {
            guard let asked = asked.map(NameKey.lookupKey), !asked.isEmpty else { return 0 }
            if key == asked { return weights.0 }
            if key.hasPrefix(asked) { return weights.1 }
            if asked.unicodeScalars.count >= 3, key.contains(asked) { return weights.2 }
            return 0
        }
        let scored = records.map { record, time -> (UUID, Int, Date) in
            var score = tier(NameKey.lookupKey(record.patient.familyName), query.familyName, (40, 25, 10))
            score += tier(NameKey.lookupKey(record.patient.givenName), query.givenName, (30, 20, 8))
            if let birth = query.dateOfBirth, record.patient.dateOfBirth == birth { score += 30 }
            if let external = query.externalId, record.patient.externalId?.lowercased() == external.lowercased() { score += 50 }
            return (record.id, score, time)
        }
        return scored.filter { $0.1 > 0 }.sorted { a, b in
            if a.1 != b.1 { return a.1 > b.1 }
            if a.2 != b.2 { return a.2 > b.2 }
            return a.0.uuidString.lowercased() < b.0.uuidString.lowercased()
        }.dropFirst(query.offset).prefix(query.limit).map { ($0.0, $0.1) }
    }

    public static func lookupsRankExactlyAsDefined(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "t", at: Date())
        let owner = RecordOwner(teamId: team.id, username: "u")
        var random = SeededGenerator(seed: 20_261_123)
        let births = (1...6).map { LocalDate(year: 1980 + $0, month: $0, day: 10 + $0)! }
        var stored: [(PatientResponse, Date)] = []
        for index in 0..<300 {
            var record = RecordStoreContract.record(UInt64(90_000 + index))
            record.patient.familyName = Self.families.randomElement(using: &random)!
            record.patient.givenName = Self.givens.randomElement(using: &random)!
            record.patient.dateOfBirth = births.randomElement(using: &random)!
            record.patient.externalId = "CASE-\(index % 50)"
            // Ten records to a batch share a time, so ties fall to the id.
            let time = Date(timeIntervalSince1970: 1_800_000_000 + Double(index / 10))
            _ = try await store.ingest([try IngestItem(record: record)], owner: owner, at: time)
            stored.append((record, time))
        }
        let names: [String?] = [
            nil, "osman", "OSM", "os", "man", "had", "hadid", "sahin", "şah", "ng", "l_a", "zz", "amin", "min", "الاحمد", "احمد", "الأ",
        ]
        for _ in 0..<60 {
            var query = LookupQuery(
                teamId: team.id, givenName: [nil, "amin", "ali", "min", "a", "mina"].randomElement(using: &random)!,
                familyName: names.randomElement(using: &random)!,
                dateOfBirth: Bool.random(using: &random) ? births.randomElement(using: &random)! : nil,
                externalId: Int.random(in: 0..<4, using: &random) == 0 ? "case-\(Int.random(in: 0..<60, using: &random))" : nil,
                limit: [5, 20].randomElement(using: &random)!, offset: [0, 0, 3, 17].randomElement(using: &random)!)
            if query.familyName == nil, query.givenName == nil, query.dateOfBirth == nil, query.externalId == nil {
                query.familyName = "osman"
            }
            let found = try await store.lookup(query).map { ($0.id, $0.score) }
            let expected = Self.expected(stored, query)
            #expect(found.map(\.0) == expected.map(\.0) && found.map(\.1) == expected.map(\.1), "\(query)")
        }
    }
}
