import Foundation

/// A case as the server sends it to those who follow it (`GET /v1/cases`, docs/cases.md), and as
/// a field machine keeps it, sealed, to fill follow-ups offline (`intake cases`, `intake fill --case`).
public struct FollowedCase: Sendable, Hashable {
    public var id: UUID
    public var list: String
    /// `open` or `closed`.
    public var status: String
    /// Who follows it; nil: the team.
    public var assignee: String?
    public var due: LocalDate?
    /// The revision a visit filled from this copy is made from.
    public var revision: Int
    /// Where it stands among the server's case changes.
    public var cursor: Int64
    public var openedAt: Date
    /// Who it is about, as the record that opened it names them.
    public var patient: PatientIdentification
    public var patientId: UUID?
    public var properties: [String: Answer]
    /// How many visits were recorded for it.
    public var visits: Int
    /// The properties visits made from one revision left different (`status` for opening or closing).
    public var conflicts: [String]

    public init(
        id: UUID, list: String, status: String = "open", assignee: String? = nil, due: LocalDate? = nil, revision: Int = 1,
        cursor: Int64 = 0,
        openedAt: Date, patient: PatientIdentification = .init(), patientId: UUID? = nil, properties: [String: Answer] = [:],
        visits: Int = 0,
        conflicts: [String] = []
    ) {
        self.id = id
        self.list = list
        self.status = status
        self.assignee = assignee
        self.due = due
        self.revision = revision
        self.cursor = cursor
        self.openedAt = openedAt
        self.patient = patient
        self.patientId = patientId
        self.properties = properties
        self.visits = visits
        self.conflicts = conflicts
    }

    /// Whether it is past its due date on `today`.
    public func isOverdue(on today: LocalDate) -> Bool { status == "open" && (due.map { $0 < today } ?? false) }

    /// The record a follow-up of this case starts from: the questionnaire's, about the case's
    /// patient, naming the case, its revision and the properties the questionnaire reads.
    public func link(for questionnaire: Questionnaire) -> CaseLink? {
        guard let follows = questionnaire.cases.follows, follows.list == list else { return nil }
        return follows.link(caseId: id, revision: revision, values: properties)
    }
}

extension FollowedCase {
    /// One case from the API's JSON (or the machine's copy, which writes the same keys).
    package static func read(_ reader: inout JSONReader) throws(JSONReadError) -> FollowedCase {
        var result = FollowedCase(id: UUID(), list: "", openedAt: Date(timeIntervalSince1970: 0))
        var seenId = false
        try reader.object { key, reader throws(JSONReadError) in
            switch key {
            case "id":
                guard let id = UUID(canonical: try reader.string()) else { throw reader.error("expected a case id") }
                result.id = id
                seenId = true
            case "list": result.list = try reader.string()
            case "status": result.status = try reader.string()
            case "assignee": result.assignee = reader.null() ? nil : try reader.string()
            case "due":
                if !reader.null() {
                    guard let day = LocalDate(iso: try reader.string()) else { throw reader.error("expected a date") }
                    result.due = day
                }
            case "revision": result.revision = try reader.integer()
            case "cursor": result.cursor = Int64(try reader.integer())
            case "openedAt":
                guard let time = Timestamp.date(from: try reader.string()) else { throw reader.error("expected a time") }
                result.openedAt = time
            case "patient": result.patient = try RecordCodec.patient(&reader)
            case "patientId": result.patientId = reader.null() ? nil : UUID(canonical: try reader.string())
            case "properties":
                try reader.object { name, reader throws(JSONReadError) in result.properties[name] = try RecordCodec.answer(&reader) }
            case "visits":
                if reader.peek() == UInt8(ascii: "[") {
                    try reader.array { _, reader throws(JSONReadError) in
                        result.visits += 1
                        _ = try reader.skipValue()
                    }
                } else {
                    result.visits = try reader.integer()
                }
            case "conflicts":
                try reader.array { _, reader throws(JSONReadError) in
                    if reader.peek() == UInt8(ascii: "{") {
                        try reader.object { key, reader throws(JSONReadError) in
                            if key == "property" { result.conflicts.append(try reader.string()) } else { _ = try reader.skipValue() }
                        }
                    } else {
                        result.conflicts.append(try reader.string())
                    }
                }
            default: _ = try reader.skipValue()
            }
        }
        guard seenId, CaseListName.isValid(result.list) else { throw reader.error("a case needs its 'id' and 'list'") }
        return result
    }

    /// The machine's copy of it: the keys ``read(_:)`` reads.
    package func write(into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("assignee")
        if let assignee { writer.string(assignee) } else { writer.null() }
        writer.key("conflicts")
        writer.beginArray()
        for conflict in conflicts { writer.string(conflict) }
        writer.endArray()
        writer.key("cursor")
        writer.integer(Int(cursor))
        writer.key("due")
        if let due { writer.date(due) } else { writer.null() }
        writer.key("id")
        writer.string(id.uuidString.lowercased())
        writer.key("list")
        writer.string(list)
        writer.key("openedAt")
        writer.string(Timestamp.string(from: openedAt))
        writer.key("patient")
        RecordCodec.write(patient, into: &writer)
        writer.key("patientId")
        if let patientId { writer.string(patientId.uuidString.lowercased()) } else { writer.null() }
        writer.key("properties")
        writer.beginObject()
        for name in properties.keys.sorted() {
            writer.key(name)
            RecordCodec.write(properties[name]!, into: &writer)
        }
        writer.endObject()
        writer.key("revision")
        writer.integer(revision)
        writer.key("status")
        writer.string(status)
        writer.key("visits")
        writer.integer(visits)
        writer.endObject()
    }

    /// A page of `GET /v1/cases`.
    public struct Page: Sendable {
        public var cases: [FollowedCase]
        /// On the last page: every open case the account follows now.
        public var caseIds: [UUID]?
        public var cursor: Int64
        public var more: Bool
    }

    /// Reads a page of `GET /v1/cases`.
    public static func page(_ data: some ContiguousBytes) throws(JSONReadError) -> Page {
        var page = Page(cases: [], caseIds: nil, cursor: 0, more: false)
        try JSONReader.document(data) { reader throws(JSONReadError) in
            try reader.object { key, reader throws(JSONReadError) in
                switch key {
                case "cases": try reader.array { _, reader throws(JSONReadError) in page.cases.append(try read(&reader)) }
                case "caseIds":
                    var ids: [UUID] = []
                    try reader.array { _, reader throws(JSONReadError) in
                        guard let id = UUID(canonical: try reader.string()) else { throw reader.error("expected a case id") }
                        ids.append(id)
                    }
                    page.caseIds = ids
                case "cursor": page.cursor = Int64(try reader.integer())
                case "more": page.more = try reader.bool()
                default: _ = try reader.skipValue()
                }
            }
        }
        return page
    }

    /// The machine's copy: the cases, the cursor, and whose and which server's they are.
    public struct Copy: Sendable, Equatable {
        public var server: String
        public var user: String
        public var cursor: Int64
        public var cases: [FollowedCase]

        public init(server: String, user: String, cursor: Int64, cases: [FollowedCase]) {
            self.server = server
            self.user = user
            self.cursor = cursor
            self.cases = cases
        }

        public func encoded() -> [UInt8] {
            var writer = JSONWriter(capacity: 256 + cases.count * 512)
            writer.beginObject()
            writer.key("cases")
            writer.beginArray()
            for followed in cases { followed.write(into: &writer) }
            writer.endArray()
            writer.key("cursor")
            writer.integer(Int(cursor))
            writer.key("server")
            writer.string(server)
            writer.key("user")
            writer.string(user)
            writer.endObject()
            return writer.bytes
        }

        public static func decode(_ data: some ContiguousBytes) throws(JSONReadError) -> Copy {
            var copy = Copy(server: "", user: "", cursor: 0, cases: [])
            try JSONReader.document(data) { reader throws(JSONReadError) in
                try reader.object { key, reader throws(JSONReadError) in
                    switch key {
                    case "cases": try reader.array { _, reader throws(JSONReadError) in copy.cases.append(try read(&reader)) }
                    case "cursor": copy.cursor = Int64(try reader.integer())
                    case "server": copy.server = try reader.string()
                    case "user": copy.user = try reader.string()
                    default: _ = try reader.skipValue()
                    }
                }
            }
            return copy
        }

        /// The copy with the pages of a pull applied, in order: changed cases replaced (a closed
        /// one dropped), and, on the last page, every case the server no longer sends dropped.
        public func applying(_ pages: [Page]) -> Copy {
            var byId = Dictionary(cases.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            var next = self
            for page in pages {
                for followed in page.cases { byId[followed.id] = followed.status == "open" ? followed : nil }
                if let keep = page.caseIds.map(Set.init) { byId = byId.filter { keep.contains($0.key) } }
                next.cursor = max(next.cursor, page.cursor)
            }
            // Soonest due first; those without a due date last; then the oldest opened.
            let never = LocalDate(year: 9999, month: 12, day: 31)!
            next.cases = byId.values.sorted { ($0.due ?? never, $0.openedAt) < ($1.due ?? never, $1.openedAt) }
            return next
        }
    }
}
