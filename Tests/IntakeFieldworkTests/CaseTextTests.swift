import Foundation
import IntakeCore
import IntakeFieldwork
import IntakeForm
import Testing

/// `intake cases list` as a field worker's terminal shows it.
struct CaseTextTests {
    let today = LocalDate(iso: "2026-12-01")!
    var cases: [FollowedCase] {
        [
            FollowedCase(
                id: UUID(uuidString: "E593AB6E-0000-4000-8000-000000000001")!, list: "follow-up", assignee: "amina",
                due: LocalDate(iso: "2026-11-20"), openedAt: Date(), patient: PatientIdentification(givenName: "فاطمة", familyName: "حداد"),
                visits: 2, conflicts: ["phq2"]),
            FollowedCase(
                id: UUID(uuidString: "599512A3-0000-4000-8000-000000000002")!, list: "follow-up", due: LocalDate(iso: "2026-12-09"),
                openedAt: Date(), patient: PatientIdentification(givenName: "Sami", familyName: "Al Hassan")),
        ]
    }

    @Test func aWideTerminalGetsEveryColumn() {
        let lines = CaseText.list(cases, today: today, width: 80).map(Self.plain)
        #expect(lines[0] == "id       list         who   due         for          visits")
        #expect(lines[1].hasPrefix("e593ab6e follow-up    ") && lines[1].hasSuffix("2026-11-20! amina        2 ⚠"), "\(lines[1])")
        #expect(lines[2].hasSuffix("2026-12-09  (team)       0"), "\(lines[2])")
        #expect(CaseText.list(cases, today: today).map(Self.plain) == lines, "a pipe (no width) gets the full table")
    }

    /// A phone's terminal (40 columns): each case on one line of it, its conflict beside its
    /// due date, and where the rest is shown.
    @Test func aFortyColumnTerminalGetsOneLineACase() {
        let lines = CaseText.list(cases, today: today, width: 40).map(Self.plain)
        #expect(lines[0] == "id       list         who   due")
        #expect(lines[1].hasSuffix("2026-11-20!⚠"), "\(lines[1])")
        #expect(lines[2].hasSuffix("S. A. 2026-12-09"), "\(lines[2])")
        #expect(lines.contains("Details: intake cases show ID"))
        for line in lines.prefix(3) { #expect(line.unicodeScalars.count <= 40, "\(line)") }
    }

    /// `intake cases show`: a choice property by the label the following questionnaire declares
    /// (several joined), a code it lacks as it stands, other values as they are; by its code
    /// when no questionnaire on the machine follows the list.
    @Test func showGivesAChoicePropertyByItsLabel() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let followUp = try QuestionnaireLoader.load(directory: root.appendingPathComponent("Questionnaires/follow-up"))
        let follows = try #require(followUp.cases.follows)
        var followed = cases[0]
        followed.properties = ["reason": .text("self_harm"), "phq2": .integer(4), "self_harm": .yesNo(true), "kept": .choice("gone")]
        let shown = CaseText.detail(followed, today: today, follows: follows)
        #expect(shown.contains("  reason: Thoughts of self-harm"), "\(shown)")
        #expect(shown.contains("  phq2: 4") && shown.contains("  self_harm: yes") && shown.contains("  kept: gone"))
        #expect(CaseText.detail(followed, today: today).contains("  reason: self_harm"))
        let reason = try #require(follows.properties.first { $0.name == "reason" })
        #expect(reason.text(of: .choice("low_mood")) == "Low mood")
        #expect(reason.text(of: .choices(["low_mood", "self_harm", "other"])) == "Low mood, Thoughts of self-harm, other")
        // A multiple-choice property keeps a code its declaration lacks, shown as it stands.
        let tags = CaseRules.Property(
            name: "tags", type: .multipleChoice(ChoiceSet(choices: [Choice(code: "a", label: LocalizedText("Alpha"))])))
        #expect(tags.text(of: .choices(["a", "other"])) == "Alpha, other")
        #expect(tags.text(of: .text("a")) == "Alpha")
    }

    /// In the field worker's language: Arabic's table reads right to left, French's in French;
    /// a narrow Arabic table still fits 40 columns.
    @Test func theListAndACaseSpeakTheFieldWorkersLanguage() {
        let arabic = FormLanguage("ar")
        let lines = CaseText.list(cases, today: today, width: 80, say: arabic)
        #expect(Self.plain(lines[0]) == "المعرّف  القائمة      من    الموعد      المتابِع     الزيارات")
        #expect(lines[0].contains("\u{200F}") && lines[2].contains("\u{200F}"), "each cell ends with a right-to-left mark")
        #expect(lines.contains("متأخرة: 1 (عليها !)."))
        #expect(Self.plain(lines[2]).contains("(الفريق)"))
        for line in CaseText.list(cases, today: today, width: 40, say: arabic).prefix(3) {
            #expect(Self.plain(line).unicodeScalars.count <= 40, "\(line)")
        }
        let shown = CaseText.detail(cases[0], today: today, say: arabic).map(Self.plain)
        #expect(shown[0] == "الحالة e593ab6e-0000-4000-8000-000000000001")
        #expect(shown[1] == "  القائمة:   follow-up (مفتوحة)" && shown[2] == "  المريض:    فاطمة حداد", "\(shown)")
        #expect(shown.contains("  الموعد:    2026-11-20 (متأخرة)"), "\(shown)")
        let french = CaseText.detail(cases[1], today: today, say: FormLanguage("fr"))
        #expect(french.contains("  suivi par: (équipe)") && french.last == "Saisir son suivi : intake fill --case 599512a3", "\(french)")
        #expect(CaseText.list([], today: today, say: FormLanguage("fr")) == ["Aucun cas ouvert sur cet appareil."])
    }

    /// A row without the direction marks that keep an Arabic name's cells in their columns.
    static func plain(_ line: String) -> String {
        String(String.UnicodeScalarView(line.unicodeScalars.filter { $0 != "\u{200E}" && $0 != "\u{200F}" }))
    }
}
