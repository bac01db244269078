import IntakeCore

/// What an export leaves in and how it marks missing answers.
public struct ExportOptions: Sendable, Hashable {
    /// Names, date of birth and external id are left out unless this is set (and the caller may see them).
    public var includeIdentifiers: Bool
    /// Free-text answers can hold names and places; this leaves their columns out.
    public var dropFreeText: Bool
    /// Moves every date and time of a patient's records back by the same number of days (1 to 365,
    /// from a keyed hash of the patient key), hiding real dates but keeping intervals.
    public var shiftDates: Bool
    /// Written for a question that was asked (shown) but not answered. Hidden questions, and questions
    /// not in the record's questionnaire version, are left empty.
    public var unansweredCode: String
    /// The prefix of canonical URLs in FHIR output: `<base>:questionnaire:<id>` for a `urn:` base,
    /// `<base>/Questionnaire/<id>` for an `http(s)` one.
    public var fhirBase: String
    /// CSV cells exactly as collected, even those a spreadsheet would run as a formula; by
    /// default such cells get a leading `'` (see the codebook's note).
    public var rawCells: Bool
    /// The deployment's data groups, each given a `group_<name>` 0/1 column (and a FHIR tag system).
    public var dataGroups: [String]
    /// How many instances of a repeat the wide CSV gives columns (`member_age_1` … `_5`); every
    /// instance is in the repeat's own table (`repeat_<id>.csv`) whatever this is.
    public var repeatColumns: Int

    public static let defaultRepeatColumns = 5

    public init(
        includeIdentifiers: Bool = false, dropFreeText: Bool = false, shiftDates: Bool = false, unansweredCode: String = ".",
        fhirBase: String = "urn:intake", rawCells: Bool = false, dataGroups: [String] = [],
        repeatColumns: Int = ExportOptions.defaultRepeatColumns
    ) {
        self.repeatColumns = max(0, min(repeatColumns, RepeatLimits.maxInstances))
        self.rawCells = rawCells
        self.dataGroups = dataGroups.sorted()
        self.includeIdentifiers = includeIdentifiers
        self.dropFreeText = dropFreeText
        self.shiftDates = shiftDates
        self.unansweredCode = unansweredCode
        self.fhirBase = fhirBase
    }
}
