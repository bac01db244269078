import IntakeCore

/// The columns one question needs, merged over every version it appears in.
indirect enum AnswerShape: Sendable, Hashable {
    /// One column. `codes` are the allowed single-choice codes, if any.
    case scalar(ColumnType, codes: [String])
    /// One 0/1 column per code.
    case multiple(codes: [String])
    /// One group of columns per field.
    case compound([Field])

    struct Field: Sendable, Hashable {
        var key: String
        var shape: AnswerShape
    }

    /// The shape of a question type, or nil when free text is left out and nothing else remains.
    init?(_ type: QuestionType, dropFreeText: Bool) {
        switch type {
        case .text:
            if dropFreeText { return nil }
            self = .scalar(.string, codes: [])
        case .yesNo: self = .scalar(.indicator, codes: [])
        case .singleChoice(let set): self = .scalar(.string, codes: set.choices.map(\.code))
        case .multipleChoice(let set): self = .multiple(codes: set.choices.map(\.code))
        case .integer: self = .scalar(.integer, codes: [])
        case .decimal: self = .scalar(.number, codes: [])
        case .date: self = .scalar(.date, codes: [])
        case .note: return nil
        case .repeatGroup: self = .scalar(.integer, codes: [])
        case .attachment: self = .scalar(.string, codes: [])
        case .compound, .geopoint:
            let kept = type.parts!.compactMap { field in
                AnswerShape(field.type, dropFreeText: dropFreeText).map { Field(key: field.key, shape: $0) }
            }
            if kept.isEmpty { return nil }
            self = .compound(kept)
        }
    }

    /// A shape that holds both: choice codes and fields are united; numbers widen to decimals;
    /// anything else that changed type between versions becomes one text column.
    func merged(with other: AnswerShape) -> AnswerShape {
        switch (self, other) {
        case (.scalar(let a, let codesA), .scalar(let b, let codesB)):
            if a == b { return .scalar(a, codes: Self.union(codesA, codesB)) }
            if Set([a, b]) == [.integer, .number] { return .scalar(.number, codes: []) }
            return .scalar(.string, codes: [])
        case (.multiple(let a), .multiple(let b)):
            return .multiple(codes: Self.union(a, b))
        case (.compound(let a), .compound(let b)):
            var fields = a
            for field in b {
                if let index = fields.firstIndex(where: { $0.key == field.key }) {
                    fields[index].shape = fields[index].shape.merged(with: field.shape)
                } else {
                    fields.append(field)
                }
            }
            return .compound(fields)
        default:
            return .scalar(.string, codes: [])
        }
    }

    private static func union(_ a: [String], _ b: [String]) -> [String] {
        var seen = Set(a)
        return a + b.filter { seen.insert($0).inserted }
    }

    /// The columns, named from `base`, with the path from the answer to each cell.
    func columns(base: String, questionKey: String, path: [AnswerStep] = []) -> [(name: String, type: ColumnType, path: [AnswerStep])] {
        switch self {
        case .scalar(let type, _):
            return [(base, type, path)]
        case .multiple(let codes):
            return codes.map { (base + "_" + ExportPlan.safeName($0), .indicator, path + [.choice($0)]) }
        case .compound(let fields):
            return fields.flatMap { $0.shape.columns(base: base + "_" + $0.key, questionKey: questionKey, path: path + [.field($0.key)]) }
        }
    }

    /// The allowed codes of the single-choice column at `path`, for enum constraints.
    func codes(at path: [AnswerStep]) -> [String] {
        switch (self, path.first) {
        case (_, .instance?): return codes(at: Array(path.dropFirst()))
        case (.scalar(_, let codes), nil): return codes
        case (.compound(let fields), .field(let key)?):
            return fields.first { $0.key == key }?.shape.codes(at: Array(path.dropFirst())) ?? []
        default: return []
        }
    }
}

extension QuestionType {
    /// The type of the part of an answer that `path` leads to, or nil when this version has no such part.
    func part(at path: ArraySlice<AnswerStep>) -> QuestionType? {
        guard let step = path.first else { return self }
        switch (self, step) {
        case (_, .instance): return part(at: path.dropFirst())
        case (_, .field(let key)) where parts != nil:
            return parts!.first { $0.key == key }?.type.part(at: path.dropFirst())
        case (.multipleChoice(let set), .choice(let code)):
            return set.choice(code: code) == nil ? nil : self
        default:
            return nil
        }
    }
}
