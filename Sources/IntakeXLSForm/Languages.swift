import Foundation
import IntakeCore

/// XLSForm names languages in column headers (`label::Arabic (ar)`); Intake by code (`ar`).
enum Languages {
    /// The names of the languages field teams use most, for headers without a code and for
    /// writing headers back.
    static let names: [String: String] = [
        "en": "English", "ar": "Arabic", "fr": "French", "es": "Spanish", "pt": "Portuguese", "sw": "Swahili", "am": "Amharic",
        "so": "Somali", "fa": "Persian", "prs": "Dari", "ps": "Pashto", "ur": "Urdu", "ku": "Kurdish", "ckb": "Central Kurdish",
        "tr": "Turkish", "ti": "Tigrinya", "uk": "Ukrainian", "ru": "Russian", "de": "German", "it": "Italian", "zh": "Chinese",
        "hi": "Hindi", "bn": "Bengali", "my": "Burmese", "ha": "Hausa", "yo": "Yoruba", "ig": "Igbo", "om": "Oromo",
        "rw": "Kinyarwanda", "ln": "Lingala", "ne": "Nepali", "ta": "Tamil", "th": "Thai", "vi": "Vietnamese", "id": "Indonesian",
        "ms": "Malay", "tl": "Tagalog", "he": "Hebrew", "el": "Greek", "pl": "Polish", "ro": "Romanian", "nl": "Dutch",
        "mg": "Malagasy", "ny": "Chichewa", "sn": "Shona", "zu": "Zulu", "xh": "Xhosa", "ff": "Fula",
        "wo": "Wolof", "bm": "Bambara", "ht": "Haitian Creole", "lo": "Lao", "km": "Khmer", "si": "Sinhala", "ka": "Georgian",
        "hy": "Armenian", "az": "Azerbaijani", "uz": "Uzbek", "kk": "Kazakh", "tg": "Tajik", "ky": "Kyrgyz", "mn": "Mongolian",
    ]

    /// The code of a header's language: `Arabic (ar)` → `ar`, `ar` → `ar`, `Arabic` → `ar`;
    /// nil when it cannot be told.
    static func code(of language: String) -> String? {
        let text = language.trimmingCharacters(in: .whitespaces)
        if let open = text.lastIndex(of: "("), text.hasSuffix(")") {
            let code = text[text.index(after: open)..<text.index(before: text.endIndex)].trimmingCharacters(in: .whitespaces)
            if isCode(code) { return code }
            return code.count <= 3 && isCode(code.lowercased()) ? code.lowercased() : nil  // `English (EN)`
        }
        if isCode(text) { return text }
        let lowered = text.lowercased()
        if text.count <= 3, isCode(lowered) { return lowered }  // `EN`
        return names.first { $0.value.lowercased() == lowered }?.key ?? autonyms[lowered]
    }

    /// Languages as their speakers name them, as forms often head their columns.
    static let autonyms: [String: String] = [
        "english": "en", "deutsch": "de", "français": "fr", "francais": "fr", "español": "es", "espanol": "es", "castellano": "es",
        "português": "pt", "portugues": "pt", "kiswahili": "sw", "العربية": "ar", "عربي": "ar", "русский": "ru", "türkçe": "tr",
        "turkce": "tr", "tetun": "tet", "tetum": "tet", "bahasa indonesia": "id", "bahasa melayu": "ms", "italiano": "it",
        "nederlands": "nl", "polski": "pl", "українська": "uk", "فارسی": "fa", "دری": "prs", "پښتو": "ps", "اردو": "ur",
        "kurdî": "ku", "soomaali": "so", "af soomaali": "so", "አማርኛ": "am", "ትግርኛ": "ti", "hausa": "ha", "kinyarwanda": "rw",
        "chichewa": "ny", "nepali": "ne", "नेपाली": "ne", "हिन्दी": "hi", "বাংলা": "bn", "ไทย": "th", "tiếng việt": "vi",
        "中文": "zh", "burmese": "my", "creole": "ht", "kreyòl": "ht", "luganda": "lg", "acholi": "ach",
    ]

    /// `Arabic (ar)`: how a header names a language.
    static func header(for code: String, in questionnaire: Questionnaire? = nil) -> String {
        "\(questionnaire?.languageNames[code] ?? names[code] ?? code) (\(code))"
    }

    /// As Intake's manifest takes them: `en`, `ar`, `fa-AF`, `prs`.
    static func isCode(_ code: String) -> Bool {
        let parts = code.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLowercase }), parts.count <= 2
        else {
            return false
        }
        return parts.count == 1 || (2...4).contains(parts[1].count) && parts[1].allSatisfy({ $0.isASCII && $0.isLetter })
    }

    /// Yes and no in a language, for the yes/no list an exported form carries.
    static func yesNo(_ code: String) -> (yes: String, no: String)? {
        [
            "en": ("Yes", "No"), "ar": ("نعم", "لا"), "fr": ("Oui", "Non"), "es": ("Sí", "No"), "pt": ("Sim", "Não"),
            "sw": ("Ndiyo", "Hapana"), "fa": ("بله", "خیر"), "prs": ("بلی", "نخیر"), "ps": ("هو", "نه"), "ur": ("ہاں", "نہیں"),
            "tr": ("Evet", "Hayır"), "uk": ("Так", "Ні"), "ru": ("Да", "Нет"), "de": ("Ja", "Nein"), "it": ("Sì", "No"),
        ][code]
    }
}
