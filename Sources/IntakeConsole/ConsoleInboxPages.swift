import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import IntakeCore
import IntakeExport
import IntakeServer
import IntakeService
import Mustache

/// The inbox (its badge and live events) and the referrals.
/// Each page asks its row of `RoutePolicy` (in `handle`) and reads through the services the API uses.
extension ConsoleRoutes {
    func registerInboxPages(on router: Router<IntakeRequestContext>) {
        router.get("/console/badge") { request, context in
            try await handle(request, context) { session, _ in
                let unread = try await unreadCount(session.user!)
                return .json("{\"unread\":\(unread),\"unreadText\":\"\(session.language.number(unread))\"}")
            }
        }
        // What comes to the inbox from now on, as Server-Sent Events (the API's stream, started
        // after the newest notification): the page's script refreshes the badge and says what changed.
        router.get("/console/events") { request, context in
            var response: Response
            if let token = request.cookies[ConsoleSecurity.sessionCookie]?.value, let user = try await services.accounts.user(token: token)
            {
                if let refusal = RoutePolicy.refusal(RoutePolicy.rule("GET", "/console/events")!, user) { throw refusal }
                // Where the browser left off (it says so when it reconnects), else from now on.
                var after = request.headers[HTTPField.Name("Last-Event-ID")!].flatMap { Int64($0) }
                if after == nil { after = try await services.teams.newestNotification(of: user) }
                response = services.notificationEvents(for: user, after: after ?? 0)
            } else {
                response = Response(status: .unauthorized)
            }
            ConsoleSecurity.harden(&response)
            return response
        }
        router.get("/console/inbox") { request, context in
            try await handle(request, context) { session, _ in
                // A page further back: before the last one shown (digits only; anything else is the first page).
                let before = request.uri.queryParameters["before"].flatMap { Int64(String($0)) }
                return try await inbox(session, before: before, flash: done(request, session))
            }
        }
        router.post("/console/inbox/read") { request, context in
            try await handle(request, context, form: true) { session, _ in
                _ = try await services.teams.markRead(nil, of: session.user!)
                return .redirect("/console/inbox?done=allRead")
            }
        }
        router.get("/console/referrals") { request, context in
            try await handle(request, context) { session, _ in
                try await referrals(session, flash: done(request, session))
            }
        }
        router.post("/console/referrals/{id}/{action}") { request, context in
            try await handle(request, context, form: true) { session, _ in
                guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)),
                    let action = context.parameters.get("action").flatMap(ReferralAction.init(rawValue:))
                else { throw APIError.notFound("referral") }
                _ = try await services.referrals.act(id, action, by: session.user!)
                return .redirect("/console/referrals?done=referralDone")
            }
        }
    }

    // MARK: Inbox and referrals

    /// The notifications a page of the inbox shows.
    static let inboxPage = 50

    func inbox(_ session: ConsoleSession, before: Int64?, flash: String?) async throws -> ConsoleAnswer {
        let user = session.user!
        let language = session.language
        // What is new, the newest first, a page at a time back to the oldest: the unread ones (read
        // ones leave with their retention, and are in `intake inbox --all`).
        let found = try await services.teams.notifications(
            NotificationQuery(userId: user.id, unreadOnly: true, before: before, newestFirst: true, limit: Self.inboxPage + 1))
        let notifications = found.prefix(Self.inboxPage)
        let unread = try await services.teams.unreadCounts(of: user).values.reduce(0, +)
        // An alert says its message, from the questionnaire version it was raised on (read once a page).
        var versions: [QuestionnaireReference: Questionnaire?] = [:]
        var items: [[String: Any]] = []
        for notification in notifications {
            var message: String?
            let s = notification.subject
            if notification.type == NotificationType.recordAlert, let id = s["questionnaireId"], let version = s["questionnaireVersion"],
                let number = s["alert"].flatMap({ Int($0) })
            {
                let reference = QuestionnaireReference(id: id, version: version)
                if versions[reference] == nil { versions[reference] = .some(try await services.questionnaires.questionnaire(reference)) }
                message = versions[reference]??.alert(number: number)?.message.text(in: language.translation)
            }
            let urgent =
                notification.type == NotificationType.recordAlert
                || (notification.type == NotificationType.referralReceived && s["priority"] == "urgent")
            var item: [String: Any] = [
                "at": language.time(notification.createdAt), "unread": notification.readAt == nil, "urgent": urgent,
                "text": ConsoleNotices.describe(notification, language, alertMessage: message),
            ]
            if let record = notification.subject["record"] ?? notification.subject["recordId"], UUID(uuidString: record) != nil {
                item["href"] = "/console/records/\(record)"
            } else if notification.subject["referral"] != nil {
                item["href"] = "/console/referrals"
            } else if let id = notification.subject["case"], UUID(uuidString: id) != nil {
                item["href"] = "/console/cases/\(id)"
            } else if notification.type == NotificationType.casesOverdue {
                item["href"] = "/console/cases"
            }
            items.append(item)
        }
        var values: [String: Any] = [
            "items": items, "hasItems": !items.isEmpty,
            "count": language["inboxCount"].replacingOccurrences(of: "{shown}", with: language.number(items.count))
                .replacingOccurrences(of: "{total}", with: language.number(unread)),
        ]
        // Older: the page after this one's last; newest: back to the start.
        if found.count > Self.inboxPage, let last = notifications.last { values["older"] = "/console/inbox?before=\(last.id)" }
        if before != nil { values["newest"] = "/console/inbox" }
        values["pages"] = values["older"] != nil || before != nil
        if let flash { values["flash"] = flash }
        return .page(render("inbox", session, title: language["inbox"], values))
    }

    func referrals(_ session: ConsoleSession, flash: String?) async throws -> ConsoleAnswer {
        let user = session.user!
        let language = session.language
        func rows(_ referrals: [Referral], received: Bool) -> [[String: Any]] {
            referrals.map { referral in
                // Only what this user may do (a coordinator does not answer a referral assigned to a member).
                let actions = ReferralService.actions(referral, for: user).filter { received ? $0 != .withdraw : $0 == .withdraw }
                return [
                    "id": referral.id.uuidString.lowercased(), "short": String(referral.id.uuidString.lowercased().prefix(8)),
                    "state": language.word("referralState", referral.state.rawValue),
                    "priority": language.word("priority", referral.priority.rawValue),
                    "urgent": referral.priority != .routine, "reason": referral.reason,
                    "from": "\(referral.referrer) (\(referral.fromTeam))",
                    "to": referral.assignee.map { "\($0) (\(referral.toTeam))" } ?? referral.toTeam,
                    "recordId": referral.recordId.uuidString.lowercased(),
                    "recordShort": String(referral.recordId.uuidString.lowercased().prefix(8)),
                    "actions": actions.map { ["action": $0.rawValue, "label": language[$0.rawValue]] },
                ]
            }
        }
        let received = rows(try await services.referrals.referrals(for: user, received: true, state: nil), received: true)
        let sent = rows(try await services.referrals.referrals(for: user, received: false, state: nil), received: false)
        var values: [String: Any] = [
            "groups": [
                // Every one, with how many there are.
                ["title": "\(language["received"]) (\(language.number(received.count)))", "rows": received, "hasRows": !received.isEmpty],
                ["title": "\(language["sent"]) (\(language.number(sent.count)))", "rows": sent, "hasRows": !sent.isEmpty],
            ]
        ]
        if let flash { values["flash"] = flash }
        return .page(render("referrals", session, title: language["referrals"], values))
    }
}
