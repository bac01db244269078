import Foundation
import IntakeCore

/// `attachments.csv`: one row per file a record's answers name (in repeats too), with the
/// record, the question, the instance, and the file's name in the export folder's
/// `attachments/` (by its content: `<sha256>.<extension>`), media type, size and SHA-256.
/// Files of questions the export leaves out (identifying ones, when identifiers are not
/// included) are not listed. The files themselves are fetched by exports from a server.
public final class AttachmentListFormatter: ExportFormatter {
    let plan: ExportPlan
    static let columns = ["record_id", "question_id", "instance", "file", "media_type", "size", "sha256"]
    /// Every file listed so far, with its record: what an export from a server fetches.
    public private(set) var listed: [(record: UUID, ref: AttachmentRef)] = []

    public init(plan: ExportPlan) {
        self.plan = plan
    }

    public func header() -> String { CSV.line(Self.columns) }
    public func footer() -> String { "" }

    public func row(_ item: ExportRecord) throws(ExportError) -> String {
        let record = item.record
        let layout = try plan.layout(for: record.questionnaire)
        let questionnaire = layout.questionnaire
        let hidden = questionnaire.hiddenPositions(in: record)
        let recordId = record.id.uuidString.lowercased()
        var out = ""
        func visit(_ question: Question, _ answer: Answer, instance: String) {
            guard !plan.leavesOut(question) else { return }
            switch answer {
            case .attachment(let ref):
                listed.append((record.id, ref))
                out += CSV.line([
                    recordId, question.key, instance, "attachments/" + ref.fileName, ref.mediaType, String(ref.size), ref.sha256,
                ])
            case .instances(let list):
                for (number, instance_) in zip(1..., list) {
                    let path = instance.isEmpty ? String(number) : "\(instance).\(number)"
                    for index in instance_.keys.sorted() {
                        guard let member = questionnaire.question(at: QuestionPosition(section: question.position.section, index: index))
                        else {
                            continue
                        }
                        visit(member, instance_[index]!, instance: path)
                    }
                }
            default: break
            }
        }
        for (position, answer) in record.allAnswers where !hidden.contains(position) {
            guard let question = questionnaire.question(at: position), question.group == nil else { continue }
            visit(question, answer, instance: "")
        }
        return out
    }
}
