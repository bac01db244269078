import Foundation
import IntakeCore

/// A name field a lookup searches.
package enum NameField: Int, Sendable {
    case family = 0
    case given = 1
}

/// One record as a lookup index keeps it: what ranking needs, and nothing else.
package struct LookupEntry: Sendable {
    package var recordId: String
    package var updatedAt: Double
    package var familyNameKey: String
    package var givenNameKey: String
    package var dateOfBirth: String?
    package var externalIdKey: String?

    package init(
        recordId: String, updatedAt: Double, familyNameKey: String, givenNameKey: String, dateOfBirth: String?, externalIdKey: String?
    ) {
        self.recordId = recordId
        self.updatedAt = updatedAt
        self.familyNameKey = familyNameKey
        self.givenNameKey = givenNameKey
        self.dateOfBirth = dateOfBirth
        self.externalIdKey = externalIdKey
    }
}

/// What a store's lookup index answers, each from an index; ``LookupRanking`` makes the ranked
/// page from it.
package protocol LookupIndex: Sendable {
    /// The name keys of `field` the team has used that start with `folded` (exact included),
    /// and, when `substrings`, those that contain it anywhere. A key no record has any more may
    /// be among them: its stream is empty.
    func nameKeys(team: Int64, field: NameField, matching folded: String, substrings: Bool) async throws -> [String]
    /// The newest `limit` entries (updatedAt descending, then record id) whose family key is one
    /// of `family` (when given) and whose given-name key is one of `given` (when given).
    func newest(team: Int64, family: [String]?, given: [String]?, limit: Int) async throws -> [LookupEntry]
    /// The team's entries with this date of birth or this external id.
    func entries(team: Int64, dateOfBirth: String?, externalIdKey: String?, limit: Int) async throws -> [LookupEntry]
    /// Revision and stored body of each record.
    func records(ids: [String]) async throws -> [String: (revision: Int, body: [UInt8], collector: String)]
}

/// The lookup ranking, computed from indexes so that its cost follows the page asked for, not
/// how many records match.
///
/// A record scores, per name field, 40/30 for an exact match, 25/20 for a prefix and 10/8 for a
/// substring (three letters or more; shorter names match at the start only), plus 30 for the
/// date of birth and 50 for the external id. Matches are ordered by score, then most recently
/// changed, then record id.
///
/// How: the names are first looked up in the team's vocabulary of distinct name keys (small),
/// which splits them into tiers. Every record whose score comes from names alone is in a stream
/// of one key (or one pair of keys, or one tier when a tier has many keys) whose records all
/// score the same; each stream is read newest first from an index, `offset + limit` at most.
/// Records matching the date of birth or external id are few and scored in full. Merging the
/// streams by score and time, keeping each record's first (highest) appearance, gives the page.
package enum LookupRanking {
    /// Above this many keys in one tier, the tier is read as one stream (one sort) rather than a
    /// stream per key.
    static let keysPerTier = 40

    package static func lookup(_ query: LookupQuery, in index: some LookupIndex) async throws -> [LookupMatch] {
        let family = query.familyName.map(NameKey.lookupKey).flatMap { $0.isEmpty ? nil : $0 }
        let given = query.givenName.map(NameKey.lookupKey).flatMap { $0.isEmpty ? nil : $0 }
        let birth = query.dateOfBirth?.description
        let external = query.externalId?.trimmingCharacters(in: .whitespaces).lowercased().nilIfEmpty
        guard family != nil || given != nil || birth != nil || external != nil else { return [] }
        let need = query.offset + query.limit
        guard need > 0 else { return [] }

        let familyTiers = try await tiers(family, .family, query.teamId, index)
        let givenTiers = try await tiers(given, .given, query.teamId, index)
        var ranked: [(score: Int, entry: LookupEntry)] = []
        // Names only: a stream per key group, and per pair of groups when both names are given.
        for group in familyTiers {
            for entry in try await index.newest(team: query.teamId, family: group.keys, given: nil, limit: need) {
                ranked.append((group.weight, entry))
            }
        }
        for group in givenTiers {
            for entry in try await index.newest(team: query.teamId, family: nil, given: group.keys, limit: need) {
                ranked.append((group.weight, entry))
            }
        }
        // Pairs: per key when few, else per tier (at most 3 × 3 streams).
        let pairs = familyTiers.count * givenTiers.count <= 50
        for familyGroup in pairs ? familyTiers : byWeight(familyTiers) {
            for givenGroup in pairs ? givenTiers : byWeight(givenTiers) {
                for entry in try await index.newest(team: query.teamId, family: familyGroup.keys, given: givenGroup.keys, limit: need) {
                    ranked.append((familyGroup.weight + givenGroup.weight, entry))
                }
            }
        }
        // Date of birth and external id: few records, each scored in full.
        if birth != nil || external != nil {
            for entry in try await index.entries(team: query.teamId, dateOfBirth: birth, externalIdKey: external, limit: 10_000) {
                var score = 0
                if let family { score += tierWeight(entry.familyNameKey, family, weights: (40, 25, 10)) }
                if let given { score += tierWeight(entry.givenNameKey, given, weights: (30, 20, 8)) }
                if let birth, entry.dateOfBirth == birth { score += 30 }
                if let external, entry.externalIdKey == external { score += 50 }
                ranked.append((score, entry))
            }
        }
        ranked.sort { a, b in
            if a.score != b.score { return a.score > b.score }
            if a.entry.updatedAt != b.entry.updatedAt { return a.entry.updatedAt > b.entry.updatedAt }
            return a.entry.recordId.utf8.lexicographicallyPrecedes(b.entry.recordId.utf8)
        }
        var seen: Set<String> = []
        var page: [(score: Int, entry: LookupEntry)] = []
        for item in ranked where item.score > 0 && seen.insert(item.entry.recordId).inserted {
            page.append(item)
            if page.count == need { break }
        }
        let chosen = page.dropFirst(query.offset)
        let stored = try await index.records(ids: chosen.map(\.entry.recordId))
        return try chosen.compactMap { item in
            guard let record = stored[item.entry.recordId] else { return nil }
            let response = try RecordCodec.decode(record.body)
            return LookupMatch(
                id: response.id, revision: record.revision, status: response.status, questionnaire: response.questionnaire,
                patient: response.patient, updatedAt: Date(timeIntervalSince1970: item.entry.updatedAt), score: item.score,
                collector: record.collector)
        }
    }

    /// One tier of keys of a name field, with the weight its records score.
    struct KeyGroup {
        var keys: [String]
        var weight: Int
    }

    private static func tiers(_ folded: String?, _ field: NameField, _ team: Int64, _ index: some LookupIndex) async throws -> [KeyGroup] {
        guard let folded else { return [] }
        let weights = field == .family ? (40, 25, 10) : (30, 20, 8)
        let keys = try await index.nameKeys(team: team, field: field, matching: folded, substrings: folded.unicodeScalars.count >= 3)
        var byWeight: [Int: [String]] = [:]
        for key in keys { byWeight[tierWeight(key, folded, weights: weights), default: []].append(key) }
        var groups: [KeyGroup] = []
        for (weight, keys) in byWeight where weight > 0 {
            if keys.count > keysPerTier {
                groups.append(KeyGroup(keys: keys, weight: weight))
            } else {
                groups += keys.map { KeyGroup(keys: [$0], weight: weight) }
            }
        }
        return groups
    }

    private static func byWeight(_ groups: [KeyGroup]) -> [KeyGroup] {
        Dictionary(grouping: groups, by: \.weight).map { KeyGroup(keys: $0.value.flatMap(\.keys), weight: $0.key) }
    }

    /// What a key scores for a folded name: exact, prefix, or substring (three letters or more).
    static func tierWeight(_ key: String, _ folded: String, weights: (Int, Int, Int)) -> Int {
        if key == folded { return weights.0 }
        if key.utf8.starts(with: folded.utf8) { return weights.1 }
        if folded.unicodeScalars.count >= 3, key.utf8.contains(subsequence: folded.utf8) { return weights.2 }
        return 0
    }
}

extension Collection where Element: Equatable {
    /// Whether `subsequence` appears in it, contiguous.
    func contains(subsequence: some Collection<Element>) -> Bool {
        guard !subsequence.isEmpty else { return true }
        var start = startIndex
        while start != endIndex {
            if self[start...].starts(with: subsequence) { return true }
            formIndex(after: &start)
        }
        return false
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
