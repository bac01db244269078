/// Typed answers for the bundled questionnaire, in the order `intake fill` asks them.
enum Answers {
    static let patient = ["Amina", "Haddad", "1990-05-01", "f", ""]
    static let section1 = [
        "SY", "syr", "arabic", "y", "", "2", "2", "2", "1", "2023-01-10", "2023-06-01", "TR", "y", "14", "2", "irbid", "ramtha",
        "31°57'14\"N 35°54'38\"E",
        // One other household member (household size 2): Enter opens them, Enter at the repeat goes on.
        "", "Lina", "spouse", "35", "n", "",
        // No photo of a document.
        "",
    ]
    static let section2 = ["y", "diabetes", "y", "Metformin", "500", "mg", "twice", "n", "n", "1", "no", "n"]
    static let section3 = ["cough, fever", "20", "n", "2024-01-01", "38.5", "60", "165", "120", "80", "90", ""]
    static let section4 = ["1", "2", "7", "y", "n", "y", "sometimes", "y", "housing, legal", "Omar", "partner", "+123", ""]
    static var all: [String] { patient + section1 + section2 + section3 + section4 }
}
