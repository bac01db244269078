import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import IntakeCore
import IntakeExport
import IntakeServer
import IntakeService
import Mustache

/// The team's day and its records: the review list, the search, one record and its review.
/// Each page asks its row of `RoutePolicy` (in `handle`) and reads through the services the API uses.
extension ConsoleRoutes {
    func registerRecordPages(on router: Router<IntakeRequestContext>) {
        router.get("/console/day") { request, context in
            try await handle(request, context) { session, _ in try await day(session) }
        }
        router.get("/console/records") { request, context in
            try await handle(request, context) { session, _ in try await records(session, request) }
        }
        router.post("/console/records/search") { request, context in
            try await handle(request, context, form: true) { session, form in try await search(session, form!) }
        }
        router.get("/console/records/{id}") { request, context in
            try await handle(request, context) { session, _ in
                try await record(session, id: try recordId(context), flash: done(request, session))
            }
        }
        router.post("/console/records/{id}/review") { request, context in
            try await handle(request, context, form: true) { session, form in
                let id = try recordId(context)
                guard let state = ReviewState(rawValue: form?["state"] ?? "") else {
                    throw APIError(.unprocessableContent, code: "invalid_review_state", message: "choose has issues, approved or rejected")
                }
                _ = try await services.reviews.decide(
                    id, state: state, lock: form!.flag("lock"), comment: form?["comment"], by: session.user!)
                return .redirect("/console/records/\(id.uuidString.lowercased())?done=reviewSaved")
            }
        }
        router.post("/console/records/{id}/reopen") { request, context in
            try await handle(request, context, form: true) { session, form in
                let id = try recordId(context)
                _ = try await services.reviews.reopen(id, comment: form?["comment"], by: session.user!)
                return .redirect("/console/records/\(id.uuidString.lowercased())?done=reopened")
            }
        }
        router.post("/console/records/{id}/comment") { request, context in
            try await handle(request, context, form: true) { session, form in
                let id = try recordId(context)
                _ = try await services.reviews.comment(id, text: form?["text"] ?? "", by: session.user!)
                return .redirect("/console/records/\(id.uuidString.lowercased())?done=commentSaved")
            }
        }
    }

    // MARK: The team's day

    func day(_ session: ConsoleSession) async throws -> ConsoleAnswer {
        let user = session.user!
        let language = session.language
        guard user.role == .coordinator || user.role == .admin else { return .redirect(home(user)) }
        let activity = try await services.reviews.activity(for: user, days: 14)
        let days = Self.lastDays(14, now: services.configuration.clock())
        var perDay = Dictionary(uniqueKeysWithValues: days.map { ($0, 0) })
        var perQuestionnaire: [String: Int] = [:]
        var perCollector: [String: Int] = [:]
        for entry in activity {
            perDay[entry.day, default: 0] += entry.count
            perQuestionnaire[entry.questionnaireId, default: 0] += entry.count
            perCollector[entry.collector.isEmpty ? "—" : entry.collector, default: 0] += entry.count
        }
        let dayBars = days.map { (language.day($0), perDay[$0] ?? 0) }
        let week = days.suffix(7).reduce(0) { $0 + (perDay[$1] ?? 0) }
        // Counted whole (the tiles once stopped at "500+").
        let waiting =
            try await services.reviews.page(
                by: user, states: [.received, .edited], questionnaireId: nil, collector: nil, limit: 1, offset: 0
            ).total ?? 0
        let issues =
            try await services.reviews.page(by: user, states: [.hasIssues], questionnaireId: nil, collector: nil, limit: 1, offset: 0).total
            ?? 0
        var openReferrals = 0
        if user.role == .coordinator {
            openReferrals = try await services.referrals.referrals(for: user, received: true, state: .open).count
        }
        var values: [String: Any] = [
            "today": language.number(perDay[days.last!] ?? 0), "week": language.number(week),
            "issues": language.number(issues), "toReview": language.number(waiting), "openReferrals": language.number(openReferrals),
            "unread": language.number(session.unread),
            "perDay": dayBars.map { ["label": $0.0, "count": language.number($0.1)] },
            "perDayChart": ConsoleChart.bars(dayBars, language: language, title: language["perDay"]),
            "perQuestionnaireChart": ConsoleChart.bars(
                perQuestionnaire.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, language: language,
                title: language["perQuestionnaire"]),
            "perCollectorChart": ConsoleChart.bars(
                perCollector.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, language: language, title: language["perCollector"]),
        ]
        if user.role == .coordinator, user.teamId != nil {
            // The team's follow-up work: its open cases by what they need today.
            let counts = try await services.cases.board(for: user, today: caseToday(), limit: 0).counts
            values["showCases"] = true
            values["casesOverdue"] = language.number(counts.overdue)
            values["casesDueToday"] = language.number(counts.dueToday)
            values["casesUnassigned"] = language.number(counts.unassigned)
        }
        if user.role == .coordinator, let team = user.teamId {
            let devices = try await services.devices.devices(teamId: team).filter { $0.revokedAt == nil }
            values["showDevices"] = true
            values["hasDevices"] = !devices.isEmpty
            values["devices"] = devices.map { device in
                [
                    "name": device.name, "user": device.username, "lastSeen": device.lastSeenAt.map(language.time) ?? "—",
                    "queue": device.queueSize.map(language.number) ?? "—",
                ]
            }
        }
        return .page(render("day", session, title: language["teamDay"], values))
    }

    /// The matches a page of a name search shows.
    static let searchPage = 50

    /// The records a page of the records list shows.
    static let recordsPage = 100

    /// The last `count` days (UTC), oldest first, as `yyyy-MM-dd`.
    static func lastDays(_ count: Int, now: Date) -> [String] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        let today = calendar.startOfDay(for: now)
        return (0..<count).reversed().map { formatter.string(from: calendar.date(byAdding: .day, value: -$0, to: today)!) }
    }

    // MARK: Records

    func stateLabel(_ state: ReviewState, _ language: ConsoleLanguage) -> String {
        switch state {
        case .received: language["stateReceived"]
        case .hasIssues: language["stateHasIssues"]
        case .edited: language["stateEdited"]
        case .approved: language["stateApproved"]
        case .rejected: language["stateRejected"]
        }
    }

    func records(_ session: ConsoleSession, _ request: Request) async throws -> ConsoleAnswer {
        let user = session.user!
        let language = session.language
        let query = request.uri.queryParameters
        let stateText = query["state"].map(String.init) ?? ""
        var states: [ReviewState] = []
        for name in stateText.split(separator: ",") {
            guard let state = ReviewState(rawValue: String(name)) else {
                throw APIError.badRequest("state is one of \(ReviewState.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            states.append(state)
        }
        let questionnaire = query["questionnaire"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        let collector = query["collector"].map(String.init).flatMap { $0.isEmpty ? nil : String($0.prefix(64)) }
        let version = query["version"].map(String.init).flatMap { $0.isEmpty ? nil : String($0.prefix(200)) }
        func day(_ name: Substring) throws -> (text: String, start: Date)? {
            guard let text = query[name].map(String.init), !text.isEmpty else { return nil }
            guard let date = LocalDate(iso: text) else { throw APIError.badRequest("the days are dates such as 2026-11-26") }
            return (text, date.startInUTC)
        }
        let (from, to) = (try day("from"), try day("to"))
        // A page of the whole list, the most recently changed first, and how many there are.
        let offset = query["offset"].flatMap { Int(String($0)) }.map { max(0, min($0, 10_000_000)) } ?? 0
        let (reviews, counted) = try await services.reviews.page(
            by: user, states: states, questionnaireId: questionnaire, collector: collector, version: version, changedFrom: from?.start,
            changedBefore: to.map { $0.start.addingTimeInterval(86_400) }, limit: Self.recordsPage, offset: offset)
        let total = counted ?? reviews.count
        // The same filters, another page.
        func pageLink(_ start: Int) -> String {
            var items = [URLQueryItem(name: "offset", value: String(start))]
            for name in ["state", "questionnaire", "collector", "version", "from", "to"] {
                if let value = query[Substring(name)].map(String.init), !value.isEmpty {
                    items.append(URLQueryItem(name: name, value: value))
                }
            }
            var components = URLComponents()
            components.path = "/console/records"
            components.queryItems = items
            return components.percentEncodedPath + "?" + (components.percentEncodedQuery ?? "")
        }
        var paging: [String: Any] = [
            "count": language["pageCount"]
                .replacingOccurrences(of: "{first}", with: language.number(reviews.isEmpty ? 0 : offset + 1))
                .replacingOccurrences(of: "{last}", with: language.number(offset + reviews.count))
                .replacingOccurrences(of: "{total}", with: language.number(total))
        ]
        if offset > 0 { paging["previous"] = pageLink(max(0, offset - Self.recordsPage)) }
        if offset + reviews.count < total { paging["next"] = pageLink(offset + Self.recordsPage) }
        paging["pages"] = paging["previous"] != nil || paging["next"] != nil
        let published = try await services.questionnaires.published()
        let ids = Array(Set(published.map(\.id))).sorted()
        let stateOptions: [[String: Any]] =
            [["value": "", "label": language["all"], "selected": stateText.isEmpty]]
            + [("received,edited", "toReview")].map { ["value": $0.0, "label": language[$0.1], "selected": stateText == $0.0] }
            + ReviewState.allCases.map { ["value": $0.rawValue, "label": stateLabel($0, language), "selected": stateText == $0.rawValue] }
        let alerting = try await alerting(reviews, for: user)
        let rows = reviews.map { review -> [String: Any] in
            [
                "id": review.recordId.uuidString.lowercased(), "short": String(review.recordId.uuidString.lowercased().prefix(8)),
                "questionnaire": "\(review.questionnaireId) \(review.questionnaireVersion)", "collector": review.collector,
                "state": review.state.rawValue, "stateLabel": stateLabel(review.state, language), "locked": review.locked,
                "changed": language.time(review.updatedAt), "alert": alerting.contains(review.recordId),
            ]
        }
        return .page(
            render(
                "records", session, title: language["records"],
                [
                    "states": stateOptions,
                    "questionnaires": [["value": "", "label": language["all"], "selected": questionnaire == nil]]
                        + ids.map { ["value": $0, "label": $0, "selected": $0 == questionnaire] },
                    "collector": collector ?? "", "version": version ?? "", "from": from?.text ?? "", "to": to?.text ?? "",
                    "showFilters": true, "rows": rows, "hasRows": !rows.isEmpty, "paging": paging,
                    "canSearch": RoutePolicy.admits("POST", "/console/records/search", user),
                ]))
    }

    /// Which of the listed records raise an alert now, for those who may read them (an admin reads
    /// no answers: none flagged). Only records of versions that have alerts are read, each through
    /// the record-access policy, a page at most.
    func alerting(_ reviews: [RecordReview], for user: User) async throws -> Set<UUID> {
        guard user.role != .admin else { return [] }
        var versions: [QuestionnaireReference: Questionnaire?] = [:]
        var flagged: Set<UUID> = []
        let today = RecordService.today()
        for review in reviews {
            let reference = QuestionnaireReference(id: review.questionnaireId, version: review.questionnaireVersion)
            if versions[reference] == nil { versions[reference] = .some(try await services.questionnaires.questionnaire(reference)) }
            guard let questionnaire = versions[reference] ?? nil, !questionnaire.alertingQuestions.isEmpty,
                let stored = try? await services.access.record(review.recordId, for: .read, by: user)
            else { continue }
            if !questionnaire.raisedAlerts(by: stored.record, today: today, hidden: []).isEmpty { flagged.insert(review.recordId) }
        }
        return flagged
    }

    /// The API's lookup, asked with a form (POST), so no name is ever in a URL or a log line.
    func search(_ session: ConsoleSession, _ form: ConsoleForm) async throws -> ConsoleAnswer {
        let user = session.user!
        let language = session.language
        // The policy's row admitted a team's writer; the team is the one searched.
        guard let team = user.teamId else { throw APIError(.forbidden, code: "no_team", message: language["forbiddenPage"]) }
        func field(_ name: String) -> String? {
            let value = (form[name] ?? "").trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : String(value.prefix(200))
        }
        // Paged by a form too (Previous and Next post the same names back), so no name is ever in an address.
        let offset = Int(form["offset"] ?? "").map { max(0, min($0, 100_000)) } ?? 0
        let query = LookupQuery(
            teamId: team, givenName: field("givenName"), familyName: field("familyName"), externalId: field("externalId"),
            limit: Self.searchPage,
            offset: offset)
        guard query.givenName != nil || query.familyName != nil || query.externalId != nil else {
            return .redirect("/console/records")
        }
        let (matches, more) = try await services.lookup(query, by: user, via: "console")
        let rows = matches.map { match -> [String: Any] in
            [
                "id": match.id.uuidString.lowercased(), "short": String(match.id.uuidString.lowercased().prefix(8)),
                "patient": match.patient.fullName,
                "questionnaire": "\(match.questionnaire.id) \(match.questionnaire.version)", "collector": match.collector,
                "state": "", "stateLabel": "", "changed": language.time(match.updatedAt),
            ]
        }
        return .page(
            render(
                "records", session, title: language["search"],
                [
                    "states": [] as [Any], "questionnaires": [] as [Any], "rows": rows, "hasRows": !rows.isEmpty, "showNames": true,
                    "canSearch": true,
                    "searched": [
                        "givenName": query.givenName ?? "", "familyName": query.familyName ?? "", "externalId": query.externalId ?? "",
                        "count": language["searchCount"].replacingOccurrences(
                            of: "{first}", with: language.number(rows.isEmpty ? 0 : offset + 1)
                        )
                        .replacingOccurrences(of: "{last}", with: language.number(offset + rows.count)),
                        "previous": offset > 0 ? String(max(0, offset - Self.searchPage)) : "", "hasPrevious": offset > 0,
                        "next": String(offset + Self.searchPage), "hasNext": more,
                    ] as [String: Any],
                ]))
    }

    func record(_ session: ConsoleSession, id: UUID, flash: String?) async throws -> ConsoleAnswer {
        let user = session.user!
        let language = session.language
        let (review, entries) = try await services.reviews.review(id, by: user)
        var values: [String: Any] = [
            "id": id.uuidString.lowercased(), "state": review.state.rawValue, "stateLabel": stateLabel(review.state, language),
            "locked": review.locked, "questionnaire": "\(review.questionnaireId) \(review.questionnaireVersion)",
            "collector": review.collector,
            "changed": language.time(review.updatedAt), "canReview": RoutePolicy.admits("POST", "/console/records/{id}/review", user),
            "thread": entries.map { entry -> [String: Any] in
                var what: [String] = []
                if let state = entry.state {
                    what.append(state == .edited ? language["editedIt"] : "\(language["set"]) \(stateLabel(state, language))")
                }
                if let locked = entry.locked { what.append(locked ? language["lockedIt"] : language["reopenedIt"]) }
                var row: [String: Any] = ["at": language.time(entry.at), "author": entry.author, "what": what.joined(separator: ", ")]
                if !entry.text.isEmpty { row["text"] = entry.text }
                return row
            },
        ]
        if let flash { values["flash"] = flash }
        // The answers, for whoever may read the record itself (an admin reviews without them, as in the API).
        if user.role != .admin {
            let stored = try await services.access.record(id, for: .read, by: user)
            // Read as `GET /v1/records/{id}` and its revisions are: on the trail.
            try await services.audit.record(
                .recordRead, by: user.username, subject: id.uuidString.lowercased(), details: ["revisions": "all", "via": "console"])
            let revisions = try await services.records.revisions(of: id)
            values["revision"] = language.number(stored.revision)
            let patient = stored.record.patient.fullName
            if !patient.isEmpty { values["patient"] = patient }
            if let questionnaire = try await services.questionnaires.questionnaire(stored.record.questionnaire) {
                // The alerts the record raises now (as stored: cleaned of hidden answers), each by its message.
                let alerts = questionnaire.raisedAlerts(by: stored.record, today: RecordService.today(), hidden: []).compactMap {
                    $0.alert?.message.text(in: language.translation)
                }
                values["alerts"] = alerts
                values["hasAlerts"] = !alerts.isEmpty
                let previous = revisions.count > 1 ? revisions[revisions.count - 2].record : nil
                values["sections"] = ConsoleAnswers.sections(stored.record, questionnaire, previous: previous, language: language)
                values["revisions"] = ConsoleAnswers.revisions(revisions, questionnaire, language: language)
                if let previous {
                    let changes = ConsoleAnswers.comparison(previous, stored.record, questionnaire, language: language)
                    values["comparison"] = changes
                    values["hasComparison"] = !changes.isEmpty
                    values["comparedRevisions"] = "\(language.number(stored.revision - 1)) → \(language.number(stored.revision))"
                }
            }
            // Its grants, for those who may see them (its team's coordinators, as `GET /v1/records/{id}/grants`).
            if RoutePolicy.refusal(RoutePolicy.rule("GET", "/v1/records/{id}/grants")!, user) == nil,
                (try? await services.access.record(id, for: .grant, by: user)) != nil
            {
                let now = services.configuration.clock()
                let grants = try await services.access.grants(recordId: id)
                values["hasGrants"] = !grants.isEmpty
                values["grants"] = grants.map { grant -> [String: Any] in
                    [
                        "to": grant.toUser ?? grant.toTeam ?? "", "access": grant.access.rawValue, "until": language.time(grant.expiresAt),
                        "active": grant.isActive(at: now) ? language["activeState"] : language["endedState"],
                    ]
                }
            }
            let referrals = try await services.referrals.referrals(for: user, record: id, patient: nil, state: nil)
            values["hasReferrals"] = !referrals.isEmpty
            values["referrals"] = referrals.map {
                [
                    "state": language.word("referralState", $0.state.rawValue), "from": "\($0.referrer) (\($0.fromTeam))",
                    "to": $0.assignee ?? $0.toTeam,
                ]
            }
        } else {
            values["revision"] = "—"
            // Said, not left to guess: why the page holds no answers.
            values["adminNote"] = language["adminRecordNote"]
        }
        return .page(render("record", session, title: "\(language["record"]) \(id.uuidString.lowercased().prefix(8))", values))
    }
}
