import Foundation
import Hummingbird
import IntakeCore
import IntakeServer
import IntakeService

/// A record's answers laid out by section, as the field worker saw the questions, and what each
/// revision changed.
enum ConsoleAnswers {
    static func sections(_ record: PatientResponse, _ questionnaire: Questionnaire, previous: PatientResponse?, language: ConsoleLanguage)
        -> [[String: Any]]
    {
        let code = language.translation
        return questionnaire.sections.map { section in
            // A repeat's questions are shown in its instances.
            let answers = section.questions.filter { $0.takesAnswer && $0.group == nil }.map { question -> [String: Any] in
                let answer = record[question.position]
                var row: [String: Any] = [
                    "question": question.text.text(in: code),
                    "answer": answer.map { text($0, of: question, questionnaire, language) } ?? language["unanswered"],
                ]
                if let previous, previous[question.position] != answer { row["isChanged"] = true }
                return row
            }
            return ["title": section.title.text(in: code), "answers": answers]
        }
    }

    /// The last revision beside the one before it: each question it changed, its answer before
    /// and after.
    static func comparison(_ before: PatientResponse, _ after: PatientResponse, _ questionnaire: Questionnaire, language: ConsoleLanguage)
        -> [[String: Any]]
    {
        let code = language.translation
        // Who the record is about first: names, date of birth, sex, file number and the registry patient.
        let identity = identityChanges(before, after, language: language).map { change -> [String: Any] in
            ["question": change.field, "before": change.before, "after": change.after]
        }
        return identity
            + questionnaire.sections.flatMap(\.questions).filter { $0.takesAnswer && $0.group == nil }.compactMap { question in
                let (old, new) = (before[question.position], after[question.position])
                guard old != new else { return nil }
                return [
                    "question": question.text.text(in: code),
                    "before": old.map { text($0, of: question, questionnaire, language) } ?? language["unanswered"],
                    "after": new.map { text($0, of: question, questionnaire, language) } ?? language["unanswered"],
                ]
            }
    }

    /// The patient-section fields and the registry link that differ between two revisions, as
    /// the page words them (empty ones said as unanswered).
    static func identityChanges(_ before: PatientResponse, _ after: PatientResponse, language: ConsoleLanguage) -> [(
        field: String, before: String, after: String
    )] {
        let (old, new) = (before.patient, after.patient)
        func word(_ text: String?) -> String { text.flatMap { $0.isEmpty ? nil : $0 } ?? language["unanswered"] }
        var changes: [(field: String, before: String, after: String)] = []
        if old.givenName != new.givenName { changes.append((language["givenName"], word(old.givenName), word(new.givenName))) }
        if old.familyName != new.familyName { changes.append((language["familyName"], word(old.familyName), word(new.familyName))) }
        if old.dateOfBirth != new.dateOfBirth {
            changes.append(
                (
                    language["dateOfBirth"], word(old.dateOfBirth.map { language.digits($0.description) }),
                    word(new.dateOfBirth.map { language.digits($0.description) })
                ))
        }
        if old.sex != new.sex {
            changes.append(
                (
                    language["sex"], word(old.sex.map { language["sex.\($0.rawValue)"] }),
                    word(new.sex.map { language["sex.\($0.rawValue)"] })
                ))
        }
        if old.externalId != new.externalId { changes.append((language["externalId"], word(old.externalId), word(new.externalId))) }
        if before.patientId != after.patientId {
            func short(_ id: UUID?) -> String? { id.map { String($0.uuidString.lowercased().prefix(8)) } }
            changes.append((language["registryPatient"], word(short(before.patientId)), word(short(after.patientId))))
        }
        return changes
    }

    /// Each revision, newest first, with the questions it changed from the one before.
    static func revisions(_ revisions: [RecordRevision], _ questionnaire: Questionnaire, language: ConsoleLanguage) -> [[String: Any]] {
        let code = language.translation
        let questions = questionnaire.sections.flatMap(\.questions).filter { $0.takesAnswer && $0.group == nil }
        var rows: [[String: Any]] = []
        for (index, revision) in revisions.enumerated() {
            let changes: String
            if index == 0 {
                changes = language["firstRevision"]
            } else {
                let before = revisions[index - 1].record
                let changed =
                    identityChanges(before, revision.record, language: language).map(\.field)
                    + questions.filter { before[$0.position] != revision.record[$0.position] }.map { $0.id ?? $0.text.text(in: code) }
                changes = changed.isEmpty ? language["none"] : changed.joined(separator: ", ")
            }
            rows.append([
                "number": language.number(revision.revision), "savedBy": revision.savedBy, "savedAt": language.time(revision.savedAt),
                "changes": changes,
            ])
        }
        return rows.reversed()
    }

    static func text(_ answer: Answer, of question: Question, _ questionnaire: Questionnaire, _ language: ConsoleLanguage) -> String {
        let code = language.translation
        func label(_ value: String) -> String {
            switch question.type {
            case .singleChoice(let set), .multipleChoice(let set):
                set.choice(code: value).map { "\($0.label.text(in: code)) (\(value))" } ?? value
            default: value
            }
        }
        switch answer {
        case .text(let text): return text
        case .integer(let value): return language.number(value)
        case .decimal(let value): return language.decimal(value)
        case .date(let date): return language.digits(date.description)
        case .yesNo(let value): return value ? language["yes"] : language["no"]
        case .choice(let value): return label(value)
        case .choices(let values): return values.map(label).joined(separator: "; ")
        case .dictionary(let fields):
            return fields.sorted { $0.key < $1.key }.map { "\($0.key): \(text($0.value, of: question, questionnaire, language))" }.joined(
                separator: "; ")
        case .geopoint(let point): return language.digits("\(point.latitude), \(point.longitude)")
        case .instances(let list):
            return list.enumerated().map { number, instance in
                let inner = instance.sorted { $0.key < $1.key }.map { index, answer -> String in
                    let member = questionnaire.question(at: QuestionPosition(section: question.position.section, index: index))
                    // The question as the form asks it (its label), not its id.
                    let name = member.map { $0.text.text(in: code) } ?? "#\(index)"
                    return "\(name): " + (member.map { text(answer, of: $0, questionnaire, language) } ?? "")
                }
                return "\(language["instance"]) \(language.number(number + 1)): " + inner.joined(separator: language == .ar ? "؛ " : "; ")
            }.joined(separator: "\n")
        case .attachment(let file): return "\(language["file"]) \(file.mediaType) \(file.sha256.prefix(12))…"
        }
    }
}

/// Bar charts as inline SVG: drawn with attributes only (the CSP allows no inline style), with a
/// title and a description for screen readers, and a table beside where the numbers matter.
enum ConsoleChart {
    static func bars(_ bars: [(label: String, value: Int)], language: ConsoleLanguage, title: String) -> String {
        guard !bars.isEmpty else { return "<p>\(escape(language["noRecords"]))</p>" }
        let barHeight = 22, gap = 6, labelWidth = 150, chartWidth = 420
        let height = bars.count * (barHeight + gap) + gap
        let most = max(1, bars.map(\.value).max() ?? 1)
        let rtl = language == .ar
        // The direction is the chart's own (an attribute: the CSP allows no inline style), so
        // `text-anchor` means the same edge whatever page it is in: in right to left, "start" is
        // the right edge. Without it a label in an Arabic page ran off the chart's right side.
        // The width follows the screen (CSS), the drawing scales with it (viewBox).
        var svg =
            "<svg class=\"chart\" role=\"img\" aria-labelledby=\"\(id(title))-t\" viewBox=\"0 0 \(labelWidth + chartWidth + 60) \(height)\" width=\"\(labelWidth + chartWidth + 60)\" height=\"\(height)\" direction=\"\(rtl ? "rtl" : "ltr")\" xmlns=\"http://www.w3.org/2000/svg\">"
        svg += "<title id=\"\(id(title))-t\">\(escape(title))</title>"
        for (index, bar) in bars.enumerated() {
            let y = gap + index * (barHeight + gap)
            // In Double: a large count times the width must not overflow.
            let width = bar.value <= 0 ? 0 : max(2, Int(Double(bar.value) / Double(most) * Double(chartWidth)))
            let total = labelWidth + chartWidth + 60
            let x = rtl ? total - labelWidth - width : labelWidth
            let labelX = labelWidth - 6
            let valueX = rtl ? x - 6 : x + width + 6
            // The label in the label column, its outer edge at the chart's edge in right to left
            // (anchored at its start, the right edge) and beside the bar in left to right (anchored
            // at its end); the value just past the bar's end, reading away from it.
            svg +=
                "<text x=\"\(rtl ? total - 4 : labelX)\" y=\(quoted(y + 15)) text-anchor=\"\(rtl ? "start" : "end")\">\(Self.fitted(bar.label))</text>"
            svg += "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(width)\" height=\"\(barHeight)\" fill=\"#0b5cad\"></rect>"
            svg += "<text x=\"\(valueX)\" y=\(quoted(y + 15)) text-anchor=\"start\">\(escape(language.number(bar.value)))</text>"
        }
        return svg + "</svg>"
    }

    static func quoted(_ value: Int) -> String { "\"\(value)\"" }

    /// A label that fits the label column (about 20 characters at the chart's font), escaped;
    /// a longer one is shortened with an ellipsis and keeps its whole text as its title.
    static func fitted(_ label: String) -> String {
        guard label.count > 20 else { return escape(label) }
        return "<title>\(escape(label))</title>" + escape(String(label.prefix(19)) + "…")
    }

    static func id(_ title: String) -> String {
        "chart-"
            + String(
                title.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }.prefix(24).map(
                    Character.init))
            + "-\(abs(title.hashValue) % 100_000)"
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}

/// What each notification says in the console: ids and names only, as the API sends them.
enum ConsoleNotices {
    /// `alertMessage`: an alert's message from its questionnaire version (the notification
    /// carries the alert's number only), in the page's language.
    static func describe(_ notification: UserNotification, _ language: ConsoleLanguage, alertMessage: String? = nil) -> String {
        let s = notification.subject
        let by = s["by"] ?? ""
        let record = (s["record"] ?? s["recordId"]).map { String($0.prefix(8)) } ?? ""
        let referral = s["referral"].map { String($0.prefix(8)) } ?? ""
        // Each notice in every language, in the order of ``ConsoleLanguage``'s columns.
        func say(_ texts: String...) -> String { texts.indices.contains(language.column) ? texts[language.column] : texts[0] }
        switch notification.type {
        case NotificationType.reviewHasIssues:
            return say(
                "\(by) says your record \(record) has issues.", "يقول \(by) إن سجلك \(record) به مشكلات.",
                "\(by) signale des problèmes dans votre fiche \(record).")
        case NotificationType.reviewRejected:
            return say("\(by) rejected your record \(record).", "رفض \(by) سجلك \(record).", "\(by) a rejeté votre fiche \(record).")
        case NotificationType.reviewReopened:
            return say(
                "\(by) reopened your record \(record) for edits.", "أعاد \(by) فتح سجلك \(record) للتعديل.",
                "\(by) a rouvert votre fiche \(record) pour modification.")
        case NotificationType.reviewComment:
            return say(
                "\(by) wrote on the review of record \(record).", "كتب \(by) في مراجعة السجل \(record).",
                "\(by) a écrit sur la revue de la fiche \(record).")
        case NotificationType.reviewEdited:
            return say(
                "\(by) edited record \(record), which you reviewed.", "عدّل \(by) السجل \(record) الذي راجعته.",
                "\(by) a modifié la fiche \(record), que vous avez revue.")
        case NotificationType.referralReceived where s["priority"] == "urgent":
            return say(
                "Urgent: \(by) referred a patient (referral \(referral)).", "عاجل: أحال \(by) مريضًا (الإحالة \(referral)).",
                "Urgent : \(by) a orienté un patient (orientation \(referral)).")
        case NotificationType.referralReceived:
            return say(
                "\(by) referred a patient (referral \(referral)).", "أحال \(by) مريضًا (الإحالة \(referral)).",
                "\(by) a orienté un patient (orientation \(referral)).")
        case NotificationType.referralAccepted, NotificationType.referralDeclined, NotificationType.referralCompleted,
            NotificationType.referralWithdrawn:
            let verb = notification.type.replacingOccurrences(of: "referral_", with: "")
            let action = language[
                verb == "accepted" ? "accept" : verb == "declined" ? "decline" : verb == "completed" ? "complete" : "withdraw"]
            let french = ["accepted": "accepté", "declined": "refusé", "completed": "terminé", "withdrawn": "retiré"][verb] ?? verb
            return say(
                "\(by) \(verb) the referral \(referral).", "الإحالة \(referral): \(action) (\(by)).",
                "\(by) a \(french) l'orientation \(referral).")
        case NotificationType.referralMessage:
            return say(
                "\(by) wrote on the referral \(referral).", "كتب \(by) في الإحالة \(referral).",
                "\(by) a écrit sur l'orientation \(referral).")
        case NotificationType.referralClosed:
            return say(
                "\(by) deleted record \(record); the referral \(referral) is closed.",
                "حذف \(by) السجل \(record)، فأُغلقت الإحالة \(referral).",
                "\(by) a supprimé la fiche \(record) ; l'orientation \(referral) est close.")
        case NotificationType.referralReturned:
            let team = s["toTeam"] ?? ""
            return say(
                "The referral \(referral) is back with the coordinators of '\(team)': the member it was assigned to left the team.",
                "عادت الإحالة \(referral) إلى منسّقي «\(team)»: من أُسندت إليه غادر الفريق.",
                "L'orientation \(referral) revient aux coordinateurs de « \(team) » : la personne à qui elle était confiée a quitté l'équipe."
            )
        case NotificationType.recordAlert:
            guard let alertMessage else {
                return say("An alert on record \(record).", "تنبيه على السجل \(record).", "Une alerte sur la fiche \(record).")
            }
            return say(
                "Alert on record \(record): \(alertMessage)", "تنبيه على السجل \(record): \(alertMessage)",
                "Alerte sur la fiche \(record) : \(alertMessage)")
        case NotificationType.announcement:
            return say("Announcement from \(by): ", "إعلان من \(by): ", "Annonce de \(by) : ") + (s["text"] ?? "")
        case NotificationType.caseOverdue:
            let id = String((s["case"] ?? "").prefix(8))
            let list = s["list"] ?? ""
            return say(
                "The \(list) case \(id) you follow is overdue.", "حالة المتابعة \(id) (\(list)) التي تتابعها متأخرة.",
                "Le suivi \(id) (\(list)) dont vous avez la charge est en retard.")
        case NotificationType.casesOverdue:
            let count = language.number(Int(s["count"] ?? "") ?? 0)
            return say(
                "\(count) open case(s) of the team are overdue.", "\(count) من حالات المتابعة المفتوحة للفريق متأخرة.",
                "\(count) suivi(s) ouvert(s) de l'équipe en retard.")
        default:
            return notification.type.replacingOccurrences(of: "_", with: " ") + (record.isEmpty ? "" : " \(record)")
                + (by.isEmpty ? "" : " (\(by))")
        }
    }
}

/// A POSIX tar archive (ustar) of a folder's files, for the console's export download: a format
/// every system reads without a library. Streamed a chunk at a time from the files on disk, its
/// length known before the first byte (so the browser shows the download's progress), its memory
/// the same at 100 records or 100,000.
struct TarArchive: Sendable {
    struct Entry: Sendable {
        var name: String
        var url: URL
        var size: Int
    }

    let entries: [Entry]

    /// The folder's files, sorted by path, each named `root/path` in the archive.
    init(folder: URL, root: String) throws {
        let names = (FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []).sorted()
        entries = try names.compactMap { name in
            let url = folder.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { return nil }
            let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
            return Entry(name: root + "/" + name, url: url, size: size)
        }
    }

    /// The archive's length in bytes: a header and the padded bytes of each file, and the end.
    var length: Int { entries.reduce(1024) { $0 + 512 + $1.size + Self.padding($1.size) } }

    static func padding(_ size: Int) -> Int { (512 - size % 512) % 512 }

    /// Writes the archive a piece at a time (at most 64 KiB of a file held at once).
    func write(_ emit: (ByteBuffer) async throws -> Void) async throws {
        for entry in entries {
            try await emit(ByteBuffer(bytes: Self.header(name: entry.name, size: entry.size)))
            let handle = try FileHandle(forReadingFrom: entry.url)
            defer { try? handle.close() }
            var written = 0
            while written < entry.size {
                // A file shorter than when it was measured would break the archive: fail instead.
                guard let chunk = try handle.read(upToCount: min(65_536, entry.size - written)), !chunk.isEmpty else {
                    throw CocoaError(.fileReadCorruptFile)
                }
                try await emit(ByteBuffer(bytes: chunk))
                written += chunk.count
            }
            if Self.padding(entry.size) > 0 { try await emit(ByteBuffer(repeating: 0, count: Self.padding(entry.size))) }
        }
        try await emit(ByteBuffer(repeating: 0, count: 1024))
    }

    static func header(name: String, size: Int) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: 512)
        func put(_ text: String, at offset: Int, length: Int) {
            for (index, byte) in text.utf8.prefix(length).enumerated() { block[offset + index] = byte }
        }
        func octal(_ value: Int, at offset: Int, length: Int) {
            put(
                String(repeating: "0", count: max(0, length - 1 - String(value, radix: 8).count)) + String(value, radix: 8), at: offset,
                length: length - 1)
        }
        // Names of up to 100 bytes, or split into prefix (155) and name (100) at a slash.
        var path = name
        if path.utf8.count > 100, let slash = path.lastIndex(of: "/") {
            put(String(path[..<slash]), at: 345, length: 155)
            path = String(path[path.index(after: slash)...])
        }
        put(path, at: 0, length: 100)
        octal(0o644, at: 100, length: 8)
        octal(0, at: 108, length: 8)
        octal(0, at: 116, length: 8)
        octal(size, at: 124, length: 12)
        octal(Int(Date().timeIntervalSince1970), at: 136, length: 12)
        put("        ", at: 148, length: 8)
        block[156] = UInt8(ascii: "0")
        put("ustar", at: 257, length: 6)
        put("00", at: 263, length: 2)
        let checksum = block.reduce(0) { $0 + Int($1) }
        octal(checksum, at: 148, length: 7)
        block[155] = UInt8(ascii: " ")
        return block
    }
}
