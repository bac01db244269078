import Foundation

/// The tokens of an expression, with the column each starts at.
enum ExpressionLexer {
    enum Token: Equatable, CustomStringConvertible {
        case number(Double)
        case text(String)
        case date(LocalDate)
        case word(String)
        case symbol(String)
        case end

        var description: String {
            switch self {
            case .number(let value): "number \(value)"
            case .text: "text"
            case .date(let date): "date \(date)"
            case .word(let word): "'\(word)'"
            case .symbol(let symbol): "'\(symbol)'"
            case .end: "end of the expression"
            }
        }
    }

    static func tokens(_ chars: [Character], startColumn: Int) throws(ExpressionError) -> [(token: Token, column: Int)] {
        var tokens: [(Token, Int)] = []
        var index = 0
        while index < chars.count {
            let character = chars[index]
            let column = startColumn + index
            if character.isWhitespace {
                index += 1
                continue
            }
            if character == "\"" || character == "'" {
                var end = index + 1
                while end < chars.count, chars[end] != character { end += 1 }
                guard end < chars.count else {
                    throw ExpressionError(column: column, message: "this text is not closed", hint: "end it with \(character)")
                }
                tokens.append((.text(String(chars[(index + 1)..<end])), column))
                index = end + 1
                continue
            }
            if character.isASCII, character.isNumber {
                var end = index
                while end < chars.count, chars[end].isASCII, chars[end].isNumber || chars[end] == "." || chars[end] == "-" { end += 1 }
                let text = String(chars[index..<end])
                if text.count == 10, text.filter({ $0 == "-" }).count == 2 {
                    guard let date = LocalDate(iso: text) else {
                        throw ExpressionError(column: column, message: "\(text) is not a date", hint: "write dates as YYYY-MM-DD")
                    }
                    tokens.append((.date(date), column))
                } else {
                    // A minus after digits is subtraction: take the number up to it.
                    let digits = text.prefix { $0 != "-" }
                    guard let value = Double(digits), digits.filter({ $0 == "." }).count <= 1 else {
                        throw ExpressionError(column: column, message: "\(digits) is not a number")
                    }
                    tokens.append((.number(value), column))
                    end = index + digits.count
                }
                index = end
                continue
            }
            if character.isLetter || character == "_" {
                var end = index
                // Letters, digits, _ and - inside a word (count-selected); a - before a space is not.
                while end < chars.count,
                    chars[end].isLetter || chars[end].isNumber || chars[end] == "_"
                        || (chars[end] == "-" && end + 1 < chars.count && chars[end + 1].isLetter && end > index)
                {
                    end += 1
                }
                var word = String(chars[index..<end])
                // Only a function's name holds a '-': `weight-height` is a subtraction.
                if word.contains("-"), Expression.functions[word.lowercased()] == nil {
                    word = String(word.prefix { $0 != "-" })
                    end = index + word.count
                }
                // `case.edd`: a property of the case a follow-up is filled for, read as one name.
                if word == "case", end + 1 < chars.count, chars[end] == ".", chars[end + 1].isLetter || chars[end + 1] == "_" {
                    end += 1
                    while end < chars.count, chars[end].isLetter || chars[end].isNumber || chars[end] == "_" { end += 1 }
                    word = String(chars[index..<end])
                }
                tokens.append((.word(word), column))
                index = end
                continue
            }
            if character == "$", index + 1 < chars.count, chars[index + 1] == "{" {
                // XLSForm's `${weight}`: the question `weight`.
                guard let close = chars[index...].firstIndex(of: "}"), close > index + 2 else {
                    throw ExpressionError(column: column, message: "'${' is not closed", hint: "write ${question_id}")
                }
                tokens.append((.word(String(chars[(index + 2)..<close])), column))
                index = close + 1
                continue
            }
            if character == ".", !(index + 1 < chars.count && chars[index + 1].isASCII && chars[index + 1].isNumber) {
                // `.`: the answer itself, in a constraint.
                tokens.append((.word("."), column))
                index += 1
                continue
            }
            let two = index + 1 < chars.count ? String(chars[index...(index + 1)]) : ""
            if ["!=", "<=", ">="].contains(two) {
                tokens.append((.symbol(two), column))
                index += 2
                continue
            }
            guard "+-*/()=<>,".contains(character) else {
                throw ExpressionError(
                    column: column, message: "'\(character)' has no meaning here",
                    hint: "operators are + - * / mod = != < <= > >= and or not")
            }
            tokens.append((.symbol(String(character)), column))
            index += 1
        }
        tokens.append((.end, startColumn + chars.count))
        return tokens
    }
}
