import Foundation

/// What one `|`-separated annotation of a question line says.
enum Annotation {
    case id(String)
    case required(Bool)
    /// `identifying`: the answer may identify a person; de-identified exports leave it out.
    case identifying
    case help(String)
    case showIf(ConditionSyntax)
    /// `filter: region`: only the choices tagged with that question's answer are offered.
    case choiceFilter(id: String, column: Int)
    /// A show-if beyond a simple comparison, in the expression language.
    case showIfExpression(Expression)
    case calculate(Expression)
    case constraint(Expression)
    case requiredIf(Expression)
    case defaultValue(Expression)
    case alertIf(Expression)
    /// `count: household_size`: a repeat group has as many instances as this says.
    case repeatCount(Expression)
    /// `pattern: [A-Z]{3}-[0-9]{4}`: a regular expression a text answer matches as a whole.
    case pattern(String)
    /// The constraint's message (translated in translation files).
    case message(String)
    /// The alert's message (translated in translation files).
    case alertMessage(String)
    case type(TypeSpec)
    /// `labels: yes=نعم, no=لا` in a translation file (`unit.mg=ملغ` for a compound field's choices).
    case labels([(code: String, label: String)])
    /// `fields: name=الاسم, dose=الجرعة` in a translation file.
    case fields([(code: String, label: String)])

    /// A type before its shared list, if any, is read.
    indirect enum TypeSpec {
        case text, yesNo
        case single(ChoicesSpec), multiple(ChoicesSpec)
        case integer(ClosedBounds<Int>)
        case decimal(ClosedBounds<Double>)
        case date(ClosedBounds<DateBound>)
        case compound([(key: String, type: TypeSpec, required: Bool)])
        case note
        case geopoint
        /// `repeat 1..10`: the questions up to `@end` are answered once per instance.
        case repeatGroup(ClosedBounds<Int>)
        /// `photo`, `audio`, `document`, `signature`: a file.
        case attachment(AttachmentKind)
    }

    enum ChoicesSpec {
        case inline([(code: String, label: String, filter: String?)])
        case list(name: String)
    }

    static let typeKeywords = [
        "text", "yesno", "single", "multiple", "integer", "decimal", "date", "compound", "note", "geopoint", "repeat", "photo", "audio",
        "document", "signature",
    ]
    static let annotationKeywords = [
        "id", "required", "optional", "identifying", "help", "show if", "labels", "fields", "calculate", "constraint", "pattern",
        "message", "required if", "default", "alert if", "alert", "filter", "count",
    ]

    struct Failure: Error {
        var column: Int
        var message: String
        var hint: String?
    }
}

extension Annotation {
    /// Parses one annotation segment.
    static func parse(_ segment: QuestionLine.Segment) throws(Failure) -> Annotation {
        let text = segment.text
        let lowered = text.lowercased()
        for prefix in ["show if", "show-if", "showif"] where lowered.hasPrefix(prefix) {
            let rest = dropSeparator(text.dropFirst(prefix.count))
            let restColumn = segment.column + text.count - rest.count
            guard !rest.isEmpty else {
                throw Failure(column: segment.column, message: "show if needs a condition", hint: "write 'show if: cough = yes'")
            }
            do {
                return .showIf(try ConditionParser.parse(String(rest), startColumn: restColumn))
            } catch {
                // Beyond a comparison (arithmetic, functions): the expression language.
                if let expression = try? Expression.parse(String(rest), startColumn: restColumn) { return .showIfExpression(expression) }
                throw Failure(column: error.column, message: error.message, hint: error.hint)
            }
        }
        for (prefixes, name) in [(["required if", "required-if"], "required if"), (["alert if", "alert-if"], "alert if")] {
            guard let prefix = prefixes.first(where: { lowered.hasPrefix($0) }) else { continue }
            let rest = dropSeparator(text.dropFirst(prefix.count))
            let restColumn = segment.column + text.count - rest.count
            let expression = try expression(
                rest, column: restColumn, name: name, example: name == "required if" ? "pregnant = yes" : ". = yes")
            return name == "required if" ? .requiredIf(expression) : .alertIf(expression)
        }
        let keyword = String(lowered.prefix { $0.isLetterQuickly || $0 == "_" || $0 == "/" })
        let rest = dropSeparator(text.dropFirst(keyword.count))
        let restColumn = segment.column + text.count - rest.count
        switch keyword {
        case "id":
            guard ConditionParser.isIdentifier(String(rest)) else {
                throw Failure(
                    column: restColumn, message: "an id must be a letter or '_' followed by letters, digits or '_'",
                    hint: "for example 'id: cough_days'")
            }
            return .id(String(rest))
        case "required", "optional":
            guard rest.isEmpty else {
                throw Failure(column: restColumn, message: "'\(keyword)' takes no value", hint: "write just '| \(keyword)'")
            }
            return .required(keyword == "required")
        case "identifying":
            guard rest.isEmpty else {
                throw Failure(column: restColumn, message: "'identifying' takes no value", hint: "write just '| identifying'")
            }
            return .identifying
        case "help":
            guard !rest.isEmpty else {
                throw Failure(column: segment.column, message: "help text is empty", hint: "write 'help: …' or leave it out")
            }
            return .help(String(rest))
        case "filter":
            guard ConditionParser.isIdentifier(String(rest)) else {
                throw Failure(
                    column: restColumn, message: "filter names the earlier question whose answer picks the choices",
                    hint: "for example '| filter: region' with choices written 'region_code:code=Label'")
            }
            return .choiceFilter(id: String(rest), column: restColumn)
        case "calculate", "calculation":
            return .calculate(
                try expression(rest, column: restColumn, name: "calculate", example: "weight / ((height / 100) * (height / 100))"))
        case "constraint":
            return .constraint(try expression(rest, column: restColumn, name: "constraint", example: ". > bp_diastolic"))
        case "count":
            return .repeatCount(try expression(rest, column: restColumn, name: "count", example: "household_size"))
        case "default":
            return .defaultValue(try expression(rest, column: restColumn, name: "default", example: "today()"))
        case "pattern":
            guard !rest.isEmpty else {
                throw Failure(
                    column: segment.column, message: "pattern needs a regular expression", hint: "for example 'pattern: [A-Z]{3}-[0-9]{4}'")
            }
            do {
                _ = try NSRegularExpression(pattern: "^(?:" + rest + ")$", options: [])
            } catch {
                throw Failure(
                    column: restColumn, message: "'\(rest)' is not a valid regular expression",
                    hint: "check its brackets and escapes; a pattern matches the whole answer, e.g. '[A-Z]{3}-[0-9]{4}'")
            }
            return .pattern(String(rest))
        case "message", "alert":
            guard !rest.isEmpty else {
                throw Failure(column: segment.column, message: "\(keyword) text is empty", hint: "write '\(keyword): …' or leave it out")
            }
            return keyword == "message" ? .message(String(rest)) : .alertMessage(String(rest))
        case "labels":
            return .labels(try parseChoices(rest, column: restColumn).map { ($0.code, $0.label) })
        case "fields":
            return .fields(try parseChoices(rest, column: restColumn).map { ($0.code, $0.label) })
        default:
            return .type(try parseType(text, column: segment.column, allowCompound: true))
        }
    }

    /// Parses the expression of a `calculate`, `constraint`, `required if`, `default` or `alert if`.
    private static func expression(_ text: Substring, column: Int, name: String, example: String) throws(Failure) -> Expression {
        guard !text.isEmpty else {
            throw Failure(column: column, message: "\(name) needs an expression", hint: "for example '\(name): \(example)'")
        }
        do {
            return try Expression.parse(String(text), startColumn: column)
        } catch {
            throw Failure(column: error.column, message: error.message, hint: error.hint)
        }
    }

    /// Drops the `:` or blanks between a keyword and its value.
    private static func dropSeparator(_ s: Substring) -> Substring {
        var rest = s.drop { $0 == " " || $0 == "\t" }
        if rest.first == ":" { rest = rest.dropFirst() }
        return rest.drop { $0 == " " || $0 == "\t" }
    }

    static func parseType(_ text: String, column: Int, allowCompound: Bool) throws(Failure) -> TypeSpec {
        let keyword = String(text.lowercased().prefix { $0.isLetterQuickly || $0 == "/" || $0 == "-" })
        let rest = dropSeparator(Substring(text).dropFirst(keyword.count))
        let restColumn = column + text.count - rest.count
        switch keyword {
        case "text", "yesno", "note", "geopoint":
            guard rest.isEmpty else {
                throw Failure(column: restColumn, message: "'\(keyword)' takes no value", hint: "write just '\(keyword)'")
            }
            switch keyword {
            case "text": return .text
            case "note": return .note
            case "geopoint": return .geopoint
            default: return .yesNo
            }
        case "integer":
            return .integer(try parseBounds(rest, column: restColumn, example: "integer 0..120") { Int($0) })
        case "photo", "audio", "document", "signature":
            guard allowCompound else {
                throw Failure(
                    column: column, message: "a compound field cannot be a file", hint: "ask for the \(keyword) as a question of its own")
            }
            guard rest.isEmpty else {
                throw Failure(column: restColumn, message: "'\(keyword)' takes no value", hint: "write just '\(keyword)'")
            }
            return .attachment(AttachmentKind(rawValue: keyword)!)
        case "repeat" where allowCompound:
            let bounds = try parseBounds(rest, column: restColumn, example: "repeat 1..10") { Int($0) }
            if let lower = bounds.lower, lower < 0 {
                throw Failure(column: restColumn, message: "a repeat cannot have fewer than 0 instances", hint: "write 'repeat 0..10'")
            }
            if let upper = bounds.upper, upper > RepeatLimits.maxInstances {
                throw Failure(
                    column: restColumn, message: "a repeat has at most \(RepeatLimits.maxInstances) instances",
                    hint: "write 'repeat 1..\(RepeatLimits.maxInstances)' or fewer")
            }
            return .repeatGroup(bounds)
        case "repeat":
            throw Failure(
                column: column, message: "a compound field cannot be a repeat",
                hint: "ask the repeated questions between 'repeat' and '@end'")
        case "decimal":
            return .decimal(
                try parseBounds(rest, column: restColumn, example: "decimal 30.0..45.0") {
                    Double($0).flatMap { $0.isFinite ? $0 : nil }
                })
        case "date":
            return .date(
                try parseBounds(rest, column: restColumn, example: "date 1900-01-01..today") {
                    $0.lowercased() == "today" ? .today : LocalDate(iso: $0).map(DateBound.date)
                })
        case "single", "multiple":
            let choices = try parseChoicesSpec(rest, column: restColumn, keyword: keyword)
            return keyword == "single" ? .single(choices) : .multiple(choices)
        case "compound" where allowCompound:
            return .compound(try parseFields(rest, column: restColumn))
        case "compound":
            throw Failure(
                column: column, message: "a compound field cannot itself be compound",
                hint: "list its parts as fields of the outer question")
        default:
            let word = String(text.prefix { !$0.isWhitespace && $0 != ":" })
            let candidates = allowCompound ? typeKeywords + annotationKeywords : typeKeywords
            let hint = Suggestion.nearest(to: word, in: candidates).map { "did you mean '\($0)'?" }
            throw Failure(
                column: column, message: "unknown type or annotation '\(word)'",
                hint: hint
                    ?? "types are \(typeKeywords.joined(separator: ", ")); annotations are \(annotationKeywords.joined(separator: ", "))")
        }
    }

    private static func parseBounds<B>(
        _ text: Substring, column: Int, example: String, parse: (String) -> B?
    ) throws(Failure) -> ClosedBounds<B> {
        if text.isEmpty { return .unbounded }
        guard let dots = text.range(of: "..") else {
            throw Failure(
                column: column, message: "expected a range 'min..max'", hint: "for example '\(example)'; either end may be left out")
        }
        let lowerText = text[..<dots.lowerBound].trimmingSpaces()
        let upperText = text[dots.upperBound...].trimmingSpaces()
        var bounds = ClosedBounds<B>()
        if !lowerText.isEmpty {
            guard let value = parse(lowerText) else {
                throw Failure(column: column, message: "'\(lowerText)' is not a valid lower bound", hint: "for example '\(example)'")
            }
            bounds.lower = value
        }
        if !upperText.isEmpty {
            guard let value = parse(upperText) else {
                throw Failure(
                    column: column + text.distance(from: text.startIndex, to: dots.upperBound),
                    message: "'\(upperText)' is not a valid upper bound", hint: "for example '\(example)'")
            }
            bounds.upper = value
        }
        if let lower = bounds.lower, let upper = bounds.upper, lower > upper {
            throw Failure(
                column: column, message: "the range is empty: \(lowerText) is above \(upperText)", hint: "write the smaller bound first")
        }
        return bounds
    }

    private static func parseChoicesSpec(_ text: Substring, column: Int, keyword: String) throws(Failure) -> ChoicesSpec {
        let lowered = text.lowercased()
        if lowered.hasPrefix("from ") || lowered == "from" {
            let name = text.dropFirst(4).trimmingSpaces()
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                throw Failure(
                    column: column, message: "expected a list name after 'from'",
                    hint: "for example '\(keyword) from countries' reads Data/countries.txt")
            }
            return .list(name: name)
        }
        guard !text.isEmpty else {
            throw Failure(
                column: column, message: "'\(keyword)' needs choices",
                hint: "list them ('\(keyword): fever, cough, headache') or name a list ('\(keyword) from countries')")
        }
        return .inline(try parseChoices(text, column: column))
    }

    /// `code=Label, Label, …`; a choice without a code gets one made from its label.
    static func parseChoices(_ text: Substring, column: Int) throws(Failure) -> [(code: String, label: String, filter: String?)] {
        var result: [(code: String, label: String, filter: String?)] = []
        var offset = 0
        for (part, characters) in text.split(atASCII: UInt8(ascii: ",")) {
            defer { offset += characters + 1 }
            let partColumn = column + offset + part.prefix { $0 == " " }.count
            let item = part.trimmingSpaces()
            guard !item.isEmpty else {
                throw Failure(column: partColumn, message: "empty choice", hint: "remove the extra comma")
            }
            guard let choice = ChoiceListParser.choice(from: item) else {
                throw Failure(
                    column: partColumn, message: "cannot make a code from the label '\(item)'",
                    hint: "give the choice a code: 'code=\(item)'")
            }
            if result.contains(where: { $0.code == choice.code }) {
                throw Failure(
                    column: partColumn, message: "the choice code '\(choice.code)' appears twice", hint: "give each choice its own code")
            }
            result.append(choice)
        }
        return result
    }

    /// `name text required; dose decimal 0..5000; unit single: mg, ml`.
    private static func parseFields(_ text: Substring, column: Int) throws(Failure) -> [(key: String, type: TypeSpec, required: Bool)] {
        guard !text.isEmpty else {
            throw Failure(
                column: column, message: "'compound' needs fields",
                hint: "for example 'compound: name text; dose decimal 0..5000; frequency text'")
        }
        var fields: [(key: String, type: TypeSpec, required: Bool)] = []
        var offset = 0
        for part in text.split(separator: ";", omittingEmptySubsequences: false) {
            defer { offset += part.count + 1 }
            let leading = part.prefix { $0 == " " }.count
            let partColumn = column + offset + leading
            var item = part.trimmingSpaces()
            guard !item.isEmpty else { throw Failure(column: partColumn, message: "empty field", hint: "remove the extra ';'") }
            var key = String(item.prefix { !$0.isWhitespace })
            var required = false
            if key.hasSuffix("*") { required = true; key.removeLast() }
            guard ConditionParser.isIdentifier(key) else {
                throw Failure(
                    column: partColumn, message: "a field name must be letters, digits or '_'", hint: "for example 'dose decimal 0..5000'")
            }
            guard !fields.contains(where: { $0.key == key }) else {
                throw Failure(column: partColumn, message: "the field '\(key)' appears twice", hint: "give each field its own name")
            }
            item = String(item.dropFirst(key.count + (required ? 1 : 0))).trimmingSpaces()
            let type: TypeSpec = item.isEmpty ? .text : try parseType(item, column: partColumn + key.count + 1, allowCompound: false)
            fields.append((key, type, required))
        }
        return fields
    }
}
