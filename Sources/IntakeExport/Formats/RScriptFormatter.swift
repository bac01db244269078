import IntakeCore

/// `records.R`: reads `records_escaped.csv` (the wide CSV with line breaks in text written `\n`,
/// see ``CSV/escapingLineBreaks(_:)``: R's reader would turn a carriage return into a line feed) into a
/// data frame `records`, turning them back, with column types, single-choice
/// questions as factors labelled with their choices (unknown codes stop the script), and
/// variable labels in the `label` attribute (as haven and labelled use).
public final class RScriptFormatter: ExportFormatter {
    let plan: ExportPlan

    public init(plan: ExportPlan) {
        self.plan = plan
    }

    public func header() -> String {
        let entries = CodebookEntry.entries(plan)
        let code = plan.options.unansweredCode
        var out = """
            # Made by Intake: reads records_escaped.csv (\(plan.questionnaireId), versions \(plan.versions.map(\.version).joined(separator: ", "))).
            # From the folder that holds it: source("records.R", encoding = "UTF-8") gives the data frame `records`.
            # records_escaped.csv is records.csv with line breaks and backslashes in text written \\n, \\r and \\b, so that
            # nothing is changed on the way in (read.csv turns a carriage return into a line feed); they are turned back below.
            # Empty cells (not asked) and \(Self.quoted(code)) (asked, no answer) are both NA here; read the CSV with
            # na.strings = character(0) to tell them apart (see codebook.md).

            intake_factor <- function(x, name, codes, labels) {
              unknown <- setdiff(unique(x[!is.na(x)]), codes)
              if (length(unknown) > 0) stop("records_escaped.csv: column ", name, " holds codes the codebook does not list")
              factor(x, levels = codes, labels = labels)
            }

            records <- read.csv(
              "records_escaped.csv", encoding = "UTF-8", fileEncoding = "UTF-8", check.names = FALSE, stringsAsFactors = FALSE,
              na.strings = c("", \(Self.quoted(code))),
              colClasses = c(

            """
        let classes = entries.map { "    \(Self.quoted($0.column.name)) = \(Self.quoted(Self.rClass($0.column.type)))" }
        out += classes.joined(separator: ",\n") + "\n  )\n)\n"
        out += "# Line feeds, carriage returns and backslashes in text, in that order (see the note above).\n"
        out += "for (column in names(records)) if (is.character(records[[column]])) records[[column]] <- gsub(\"\\\\b\", \"\\\\\",\n"
        out += "  gsub(\"\\\\r\", \"\\r\", gsub(\"\\\\n\", \"\\n\", records[[column]], fixed = TRUE), fixed = TRUE), fixed = TRUE)\n"
        if !plan.options.rawCells {
            out += "# A leading ' marks text a spreadsheet could run as a formula, or text equal to the unanswered code: remove it.\n"
            out +=
                "for (column in names(records)) if (is.character(records[[column]])) records[[column]] <- sub(\"^'\", \"\", records[[column]])\n"
        }
        for entry in entries where entry.column.type == .datetime {
            let name = Self.quoted(entry.column.name)
            out += "records[[\(name)]] <- as.POSIXct(records[[\(name)]], format = \"%Y-%m-%dT%H:%M:%OSZ\", tz = \"UTC\")\n"
        }
        for entry in entries where entry.column.type == .string && !entry.codes.isEmpty {
            guard let set = entry.partType?.choices else { continue }
            var labels = entry.codes.map { set.choice(code: $0)?.label.base ?? $0 }
            for (index, label) in labels.enumerated() where labels.filter({ $0 == label }).count > 1 {
                labels[index] = "\(label) (\(entry.codes[index]))"
            }
            let name = Self.quoted(entry.column.name)
            out += "records[[\(name)]] <- intake_factor(records[[\(name)]], \(name),\n"
            out += "  c(" + entry.codes.map(Self.quoted).joined(separator: ", ") + "),\n"
            out += "  c(" + labels.map(Self.quoted).joined(separator: ", ") + "))\n"
        }
        for entry in entries {
            let label = entry.label(in: nil)
            guard !label.isEmpty else { continue }
            out += "attr(records[[\(Self.quoted(entry.column.name))]], \"label\") <- \(Self.quoted(label))\n"
        }
        out += "rm(intake_factor)\n"
        return out
    }

    public func row(_ record: ExportRecord) -> String { "" }
    public var readsRecords: Bool { false }
    public func footer() -> String { "" }

    static func rClass(_ type: ColumnType) -> String {
        switch type {
        case .indicator: "integer"
        case .integer, .number: "numeric"
        case .date: "Date"
        case .string, .datetime: "character"
        }
    }

    /// An R string literal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += "\\x" + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
