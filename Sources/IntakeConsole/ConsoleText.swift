import Foundation

/// The time zone a page shows times in, for the request it answers: the user's team's (set by
/// its coordinators, `PATCH /v1/teams/{team}`), UTC otherwise.
enum ConsoleZone {
    static let utc = TimeZone(identifier: "UTC")!
    @TaskLocal static var current: TimeZone = utc
}

/// The console's languages: English, Arabic (right to left) and French, chosen per browser and
/// remembered in a cookie (and on the account). Every word a page shows comes from here; numbers
/// and dates are written in the language's own form (Arabic-Indic digits for Arabic).
///
/// A language is data: its column in ``ConsoleText/strings`` and a case here. To add one, add
/// the case (its code), its name, locale and direction, and its text as the next column of every
/// string (the tests find a string left without it); see docs/languages.md.
enum ConsoleLanguage: String, CaseIterable, Sendable {
    case en, ar, fr

    /// The language's column in ``ConsoleText/strings``.
    var column: Int { Self.allCases.firstIndex(of: self)! }
    var direction: String { self == .ar ? "rtl" : "ltr" }
    /// The questionnaire translation a page shows (nil: the questionnaire's base text).
    var translation: String? { self == .en ? nil : rawValue }
    /// The languages a page offers to switch to, English first, then in the order above.
    var others: [ConsoleLanguage] { Self.allCases.filter { $0 != self } }
    /// The language's own name, for the switch.
    var name: String {
        switch self {
        case .en: "English"
        case .ar: "العربية"
        case .fr: "Français"
        }
    }
    var locale: Locale {
        switch self {
        case .en: Locale(identifier: "en_GB")
        case .ar: Locale(identifier: "ar")
        case .fr: Locale(identifier: "fr_FR")
        }
    }

    /// Arabic is written with Arabic-Indic digits (٠١٢…) and its own decimal sign; the digits
    /// are set here (Foundation's formatters on Linux keep Latin digits for `ar`).
    func digits(_ text: String) -> String {
        guard self == .ar else { return text }
        return String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    switch scalar {
                    case "0"..."9": Unicode.Scalar(0x0660 + scalar.value - 0x30)!
                    case ".": "\u{066B}"
                    default: scalar
                    }
                }))
    }

    func number(_ value: Int) -> String { digits(String(value)) }

    func decimal(_ value: Double) -> String { self == .fr ? String(value).replacingOccurrences(of: ".", with: ",") : digits(String(value)) }

    /// A time as the user reads it, to the minute, in the time zone of the page (``ConsoleZone``:
    /// the user's team's, UTC by default), named after it.
    func time(_ date: Date) -> String {
        let zone = ConsoleZone.current
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = zone
        formatter.setLocalizedDateFormatFromTemplate("yyyyMMMdHHmm")
        // (Linux names UTC "GMT".)
        let name =
            zone == ConsoleZone.utc || ["UTC", "GMT"].contains(zone.identifier) ? "UTC" : zone.abbreviation(for: date) ?? zone.identifier
        return digits(formatter.string(from: date)) + " " + digits(name)
    }

    /// A day (`2026-11-26`) as the user reads it, with its year (a due date may be last year's).
    func date(_ key: String) -> String { day(key, template: "yyyyMMMd") }

    /// A day (`2026-11-26`) as the user reads it.
    func day(_ key: String, template: String = "EEEMMMd") -> String {
        let parser = DateFormatter()
        parser.locale = Locale(identifier: "en_US_POSIX")
        parser.timeZone = TimeZone(identifier: "UTC")
        parser.dateFormat = "yyyy-MM-dd"
        guard let date = parser.date(from: key) else { return key }
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.setLocalizedDateFormatFromTemplate(template)
        return digits(formatter.string(from: date))
    }

    subscript(_ key: String) -> String { ConsoleText.strings[key].map(text) ?? key }

    /// A string's text in this language; English where a column is missing.
    private func text(_ columns: [String]) -> String { columns.indices.contains(column) ? columns[column] : columns[0] }

    /// A code the API uses (`accepted`, `urgent`, `all_qualified_researchers`) as this language
    /// says it: the string `kind.code`, or the code itself for one this console does not know.
    func word(_ kind: String, _ code: String) -> String { ConsoleText.strings["\(kind).\(code)"].map(text) ?? code }

    /// Every string, for a template's `t`.
    var table: [String: String] { ConsoleText.strings.mapValues(text) }
}

enum ConsoleText {
    /// key: [English, Arabic, French], the columns of ``ConsoleLanguage``.
    static let strings: [String: [String]] = [
        "skip": ["Skip to the content", "انتقل إلى المحتوى", "Aller au contenu"],
        "menu": ["Console", "لوحة التحكم", "Console"],
        "day": ["Day", "اليوم", "Jour"],
        "today": ["Today", "اليوم", "Aujourd'hui"],
        "teamDay": ["The team's day", "يوم الفريق", "La journée de l'équipe"],
        "records": ["Records", "السجلات", "Fiches"],
        "record": ["Record", "السجل", "Fiche"],
        "inbox": ["Inbox", "البريد الوارد", "Boîte de réception"],
        "referrals": ["Referrals", "الإحالات", "Orientations"],
        "referral": ["Referral", "الإحالة", "Orientation"],
        "exports": ["Exports", "التصدير", "Exports"],
        "signIn": ["Sign in", "تسجيل الدخول", "Se connecter"],
        "signOut": ["Sign out", "تسجيل الخروج", "Se déconnecter"],
        "signOutEverywhere": ["Sign out everywhere", "الخروج من كل الأجهزة", "Se déconnecter partout"],
        "signedOut": [
            "You are signed out of this browser.", "تم تسجيل خروجك من هذا المتصفح.", "Votre session est fermée sur ce navigateur.",
        ],
        "signedOutEverywhere": [
            "You are signed out on every browser and every machine signed in with intake login; tokens made for scripts and enrolled machines stay.",
            "تم تسجيل خروجك من كل المتصفحات ومن كل جهاز سجّل الدخول بالأمر intake login؛ تبقى الرموز المصنوعة للبرامج والأجهزة المسجّلة.",
            "Vos sessions sont fermées sur tous les navigateurs et sur tous les appareils connectés avec intake login ; les jetons créés pour des scripts et des appareils enregistrés restent valides.",
        ],
        "username": ["Username", "اسم المستخدم", "Nom d'utilisateur"],
        "password": ["Password", "كلمة المرور", "Mot de passe"],
        "badCredentials": [
            "The username or the password is wrong.", "اسم المستخدم أو كلمة المرور غير صحيحة.",
            "Le nom d'utilisateur ou le mot de passe est incorrect.",
        ],
        "throttled": [
            "Too many failed sign-ins: wait a minute and try again.", "محاولات فاشلة كثيرة: انتظر دقيقة ثم حاول مرة أخرى.",
            "Trop d'échecs de connexion : attendez une minute et réessayez.",
        ],
        "lockedAccount": [
            "This account is locked after repeated failed sign-ins; ask an admin to unlock it.",
            "هذا الحساب مقفل بعد محاولات فاشلة متكررة؛ اطلب من المسؤول فتحه.",
            "Ce compte est verrouillé après plusieurs échecs de connexion ; demandez à un administrateur de le déverrouiller.",
        ],
        "unread": ["Unread", "غير مقروءة", "Non lus"],
        "liveChanged": [
            "Something new arrived in your inbox; reload the page to see it.", "وصل شيء جديد إلى بريدك الوارد؛ أعد تحميل الصفحة لتراه.",
            "Du nouveau est arrivé dans votre boîte de réception ; rechargez la page pour le voir.",
        ],
        "summary": ["Summary", "ملخص", "Résumé"],
        "receivedToday": ["records received today", "سجلات وصلت اليوم", "fiches reçues aujourd'hui"],
        "receivedWeek": ["records in the last 7 days", "سجلات في آخر ٧ أيام", "fiches sur les 7 derniers jours"],
        "toReview": ["to review (received or edited)", "بانتظار المراجعة (مستلمة أو معدّلة)", "à vérifier (reçues ou modifiées)"],
        "openReferrals": ["open referrals", "إحالات مفتوحة", "orientations ouvertes"],
        "perDay": ["Records per day (last 14 days)", "السجلات في اليوم (آخر ١٤ يومًا)", "Fiches par jour (14 derniers jours)"],
        "perQuestionnaire": [
            "Records per questionnaire (last 14 days)", "السجلات لكل استبيان (آخر ١٤ يومًا)", "Fiches par questionnaire (14 derniers jours)",
        ],
        "perCollector": [
            "Records per collector (last 14 days)", "السجلات لكل جامع بيانات (آخر ١٤ يومًا)",
            "Fiches par agent de collecte (14 derniers jours)",
        ],
        "devices": [
            "Machines: drafts and queues as last reported", "الأجهزة: المسودات وقوائم الانتظار كما أُبلغ آخر مرة",
            "Appareils : brouillons et files d'attente selon leur dernier signalement",
        ],
        "devicesCaption": ["Enrolled machines", "الأجهزة المسجلة", "Appareils enregistrés"],
        "noDevices": ["No machine is enrolled.", "لا يوجد جهاز مسجل.", "Aucun appareil n'est enregistré."],
        "device": ["Machine", "الجهاز", "Appareil"],
        "user": ["User", "المستخدم", "Utilisateur"],
        "lastSeen": ["Last seen", "آخر ظهور", "Dernier contact"],
        "queue": ["Waiting to upload", "بانتظار الرفع", "En attente d'envoi"],
        "reviewState": ["Review state", "حالة المراجعة", "Statut de vérification"],
        "reviewStates": [
            "Only records in these review states (none: all)", "فقط السجلات بحالات المراجعة هذه (لا شيء: الكل)",
            "Uniquement les fiches ayant ces statuts de vérification (aucun coché : toutes)",
        ],
        "questionnaire": ["Questionnaire", "الاستبيان", "Questionnaire"],
        "collector": ["Collector", "جامع البيانات", "Agent de collecte"],
        "changedFrom": ["Changed from", "تغيّر من", "Modifiées du"],
        "changedTo": ["to", "إلى", "au"],
        "filter": ["Show", "عرض", "Afficher"],
        "search": ["Find a patient", "ابحث عن مريض", "Rechercher un patient"],
        "familyName": ["Family name", "اسم العائلة", "Nom de famille"],
        "givenName": ["Given name", "الاسم الأول", "Prénom"],
        "externalId": ["File number", "رقم الملف", "Numéro de dossier"],
        "dateOfBirth": ["Date of birth", "تاريخ الميلاد", "Date de naissance"],
        "sex": ["Sex", "الجنس", "Sexe"],
        "sex.female": ["Female", "أنثى", "Féminin"],
        "sex.male": ["Male", "ذكر", "Masculin"],
        "sex.other": ["Other", "آخر", "Autre"],
        "sex.unknown": ["Unknown", "غير معروف", "Inconnu"],
        "registryPatient": ["Registry patient", "مريض السجل", "Patient du registre"],
        "referralState.open": ["Open", "مفتوحة", "Ouverte"],
        "referralState.accepted": ["Accepted", "مقبولة", "Acceptée"],
        "referralState.completed": ["Completed", "مكتملة", "Terminée"],
        "referralState.declined": ["Declined", "مرفوضة", "Refusée"],
        "referralState.withdrawn": ["Withdrawn", "مسحوبة", "Retirée"],
        "referralState.closed": ["Closed (record deleted)", "مغلقة (حُذف السجل)", "Clôturée (fiche supprimée)"],
        "priority.routine": ["Routine", "عادية", "Normale"],
        "priority.urgent": ["Urgent", "عاجلة", "Urgente"],
        "priority.emergency": ["Emergency", "طارئة", "Urgence vitale"],
        "sharing.no_sharing": ["No sharing", "بلا مشاركة", "Aucun partage"],
        "sharing.sponsors_and_partners": ["Sponsors and partners", "الجهات الراعية والشركاء", "Promoteurs et partenaires"],
        "sharing.all_qualified_researchers": ["All qualified researchers", "كل الباحثين المؤهلين", "Tous les chercheurs qualifiés"],
        "method.verbal": ["Verbal", "شفهية", "Oral"],
        "method.written": ["Written", "كتابية", "Écrit"],
        "method.electronic": ["Electronic", "إلكترونية", "Électronique"],
        "questionnaireState.draft": ["Draft", "مسودة", "Brouillon"],
        "questionnaireState.published": ["Published", "منشورة", "Publié"],
        "questionnaireState.closed": ["Closed", "مغلقة", "Fermé"],
        "questionnaireState.retired": ["Retired", "متقاعدة", "Retiré"],
        "noRecords": ["No records.", "لا توجد سجلات.", "Aucune fiche."],
        "patient": ["Patient", "المريض", "Patient"],
        "changed": ["Changed", "آخر تعديل", "Dernière modification"],
        "all": ["All", "الكل", "Tous"],
        "stateReceived": ["Received", "مستلم", "Reçue"],
        "stateHasIssues": ["Has issues", "به مشكلات", "À corriger"],
        "stateEdited": ["Edited", "معدّل", "Modifiée"],
        "stateApproved": ["Approved", "معتمد", "Approuvée"],
        "stateRejected": ["Rejected", "مرفوض", "Rejetée"],
        "locked": ["(locked)", "(مقفل)", "(verrouillée)"],
        "revision": ["Revision", "النسخة", "Révision"],
        "review": ["Review", "المراجعة", "Vérification"],
        "setState": ["Set the review", "حدد المراجعة", "Résultat de la vérification"],
        "lockIt": [
            "Lock against edits (approved only)", "اقفل ضد التعديل (للمعتمد فقط)",
            "Verrouiller contre les modifications (fiches approuvées uniquement)",
        ],
        "comment": [
            "Comment (the collector reads it in the thread)", "تعليق (يقرؤه جامع البيانات في سلسلة المراجعة)",
            "Commentaire (l'agent de collecte le lit dans le fil de discussion)",
        ],
        "saveReview": ["Save the review", "احفظ المراجعة", "Enregistrer la vérification"],
        "reopen": ["Reopen for edits", "أعد الفتح للتعديل", "Rouvrir aux modifications"],
        "addComment": ["Add to the thread", "أضف إلى السلسلة", "Ajouter au fil de discussion"],
        "send": ["Send", "أرسل", "Envoyer"],
        "set": ["set", "حدّد", "a mis le statut"],
        "editedIt": ["edited the record", "عدّل السجل", "a modifié la fiche"],
        "lockedIt": ["locked it", "قفله", "l'a verrouillée"],
        "reopenedIt": ["reopened it", "أعاد فتحه", "l'a rouverte"],
        "changedSince": ["changed in the last revision", "تغيّر في آخر نسخة", "modifiée à la dernière révision"],
        "revisions": ["Revisions", "النسخ", "Révisions"],
        "grants": ["Grants beyond the team", "الأذونات خارج الفريق", "Accès accordés hors de l'équipe"],
        "access": ["Access", "الوصول", "Accès"],
        "until": ["Until", "حتى", "Jusqu'au"],
        "endedState": ["ended", "منتهٍ", "terminé"],
        "newToken": ["New token", "رمز جديد", "Nouveau jeton"],
        "tokenTitle": ["The new token", "الرمز الجديد", "Le nouveau jeton"],
        "tokenOnce": [
            "Copy it now into the script or machine that uses it: it is shown only now, and never again. It lasts 90 days.",
            "انسخه الآن إلى البرنامج أو الجهاز الذي يستخدمه: يُعرض الآن فقط ولن يُعرض مرة أخرى. صالح ٩٠ يومًا.",
            "Copiez-le maintenant dans le script ou l'appareil qui l'utilise : il n'est affiché que cette fois, et plus jamais. Il est valable 90 jours.",
        ],
        "lastChanges": ["What the last revision changed", "ما غيّرته آخر نسخة", "Modifications de la dernière révision"],
        "question": ["Question", "السؤال", "Question"],
        "before": ["Before", "قبل", "Avant"],
        "after": ["After", "بعد", "Après"],
        "savedBy": ["Saved by", "حفظه", "Enregistrée par"],
        "savedAt": ["Saved", "وقت الحفظ", "Enregistrée le"],
        "changedQuestions": ["Questions changed", "الأسئلة التي تغيرت", "Questions modifiées"],
        "firstRevision": ["first revision", "النسخة الأولى", "première révision"],
        "none": ["none", "لا شيء", "aucun"],
        "cases": ["Cases", "حالات المتابعة", "Suivis"],
        "case": ["Case", "حالة متابعة", "Suivi"],
        "casesCaption": [
            "Open cases, soonest due first", "الحالات المفتوحة، الأقرب موعدًا أولًا",
            "Suivis ouverts, les plus proches de l'échéance d'abord",
        ],
        "caseList": ["List", "القائمة", "Liste"],
        "due": ["Due", "الموعد", "Échéance"],
        "follows": ["Followed by", "يتابعها", "Suivi par"],
        "visits": ["Visits", "الزيارات", "Visites"],
        "overdue": ["overdue", "متأخرة", "en retard"],
        "conflict": ["conflict", "تعارض", "conflit"],
        "theTeam": ["the team", "الفريق", "l'équipe"],
        "openCases": ["open cases", "حالات مفتوحة", "suivis ouverts"],
        "overdueCases": ["overdue", "متأخرة", "en retard"],
        "casesDueToday": ["due today", "موعدها اليوم", "à faire aujourd'hui"],
        "unassignedCases": ["left to the team", "متروكة للفريق", "laissés à l'équipe"],
        "overdueCasesTile": ["cases overdue", "حالات متابعة متأخرة", "suivis en retard"],
        "casesDueTodayTile": ["cases due today", "حالات متابعة موعدها اليوم", "suivis à faire aujourd'hui"],
        "unassignedCasesTile": ["cases left to the team", "حالات متابعة متروكة للفريق", "suivis laissés à l'équipe"],
        "noOpenCases": ["No open cases.", "لا توجد حالات مفتوحة.", "Aucun suivi ouvert."],
        "moreCases": [
            "Open cases not listed here (later due dates):", "حالات مفتوحة غير معروضة هنا (مواعيدها لاحقة):",
            "Suivis ouverts non listés ici (échéances plus tardives) :",
        ],
        "caseOpened": ["opened the case", "فتح الحالة", "a ouvert le suivi"],
        "visitMade": ["visit", "زيارة", "visite"],
        "visitClosed": ["visit, closed the case", "زيارة، أغلقت الحالة", "visite, a clos le suivi"],
        "visitWithdrawn": [
            "visit withdrawn (its record was deleted or moved)", "زيارة مسحوبة (حُذف سجلها أو نُقل)",
            "visite retirée (sa fiche a été supprimée ou transférée)",
        ],
        "caseClosedBy": ["closed the case", "أغلق الحالة", "a clos le suivi"],
        "caseEditedBy": ["changed its properties by hand", "غيّر خصائصها يدويًا", "a modifié ses propriétés à la main"],
        "caseReopenedBy": ["opened the case again", "أعاد فتح الحالة", "a rouvert le suivi"],
        "caseErased": [
            "it was deleted (or its opening record was): nothing of the patient is kept",
            "حُذفت (أو حُذف السجل الذي فتحها): لا يُحفظ شيء عن المريض",
            "il a été supprimé (ou sa fiche d'ouverture) : rien du patient n'est gardé",
        ],
        "conflicts": ["Conflicts", "التعارضات", "Conflits"],
        "conflictsExplained": [
            "Visits made offline from the same revision disagree on these; the latest visit's value stands meanwhile.",
            "زيارات أُجريت دون اتصال من النسخة نفسها تختلف في هذه؛ تبقى قيمة أحدث زيارة إلى حين المراجعة.",
            "Des visites faites hors ligne depuis la même révision divergent sur ces points ; la valeur de la dernière visite vaut en attendant.",
        ],
        "caseProperties": ["What the case holds", "ما تحمله الحالة", "Ce que contient le suivi"],
        "property": ["Property", "الخاصية", "Propriété"],
        "value": ["Value", "القيمة", "Valeur"],
        "timeline": ["Timeline", "التسلسل الزمني", "Chronologie"],
        "changeCase": ["Change the case", "تعديل الحالة", "Modifier le suivi"],
        "assignCase": ["Assign", "إسناد", "Attribuer"],
        "closeCase": ["Close the case", "إغلاق الحالة", "Clore le suivi"],
        "reopenCase": ["Open the case again", "إعادة فتح الحالة", "Rouvrir le suivi"],
        "caseSaved": ["The case is updated.", "حُدّثت الحالة.", "Le suivi est mis à jour."],
        "caseStatus.open": ["open", "مفتوحة", "ouvert"],
        "caseStatus.closed": ["closed", "مغلقة", "clos"],
        "yes": ["Yes", "نعم", "Oui"],
        "no": ["No", "لا", "Non"],
        "unanswered": ["—", "—", "—"],
        "identifyingHidden": ["(identifying: not shown)", "(معلومة تعريفية: غير معروضة)", "(donnée identifiante : non affichée)"],
        "file": ["file", "ملف", "fichier"],
        "instance": ["Entry", "إدخال", "Entrée"],
        "nothingNew": ["Nothing new.", "لا جديد.", "Rien de nouveau."],
        "markAllRead": ["Mark all read", "علّم الكل كمقروء", "Tout marquer comme lu"],
        "inboxCount": [
            "{shown} of {total} unread, the newest first", "{shown} من {total} غير مقروءة، الأحدث أولًا",
            "{shown} sur {total} non lus, les plus récents d'abord",
        ],
        "olderPage": ["Older", "الأقدم", "Plus anciens"],
        "pageCount": [
            "{first}–{last} of {total}, the most recently changed first", "{first}–{last} من {total}، الأحدث تعديلًا أولًا",
            "{first}–{last} sur {total}, les plus récemment modifiées d'abord",
        ],
        "previousPage": ["Previous", "السابق", "Précédent"],
        "patientsCount": [
            "{shown} patients match, the closest first.", "المرضى المطابقون: {shown}، الأقرب أولًا.",
            "{shown} patients correspondent, les plus proches d'abord.",
        ],
        "patientsMore": [
            "The {shown} closest matches of more: add to the name or give the file number to narrow it.",
            "أقرب {shown} من نتائج أكثر: أضف إلى الاسم أو اذكر رقم الملف لتضييقها.",
            "Les {shown} résultats les plus proches (il y en a davantage) : complétez le nom ou indiquez le numéro de dossier pour affiner la recherche.",
        ],
        "searchCount": [
            "Matches {first}–{last}, the closest first", "النتائج {first}–{last}، الأقرب أولًا",
            "Résultats {first}–{last}, les plus proches d'abord",
        ],
        "nextPage": ["Next", "التالي", "Suivant"],
        "newestPage": ["Newest", "الأحدث", "Plus récents"],
        "open": ["Open", "افتح", "Ouvrir"],
        "received": ["Received", "الواردة", "Reçues"],
        "sent": ["Sent", "المرسلة", "Envoyées"],
        "noReferrals": ["No referrals.", "لا توجد إحالات.", "Aucune orientation."],
        "stateWord": ["State", "الحالة", "Statut"],
        "priority": ["Priority", "الأولوية", "Priorité"],
        "reason": ["Reason", "السبب", "Motif"],
        "alerts": ["Alerts this record raises", "تنبيهات هذا السجل", "Alertes déclenchées par cette fiche"],
        "alertFlag": ["alert", "تنبيه", "alerte"],
        "patientRecords": ["The patient's records", "سجلات المريض", "Fiches du patient"],
        "removeMember": ["Remove from the team", "أخرِج من الفريق", "Retirer de l'équipe"],
        "memberRemoved": [
            "The member is out of the team; their open referrals went back to the coordinators.",
            "خرج العضو من الفريق؛ عادت إحالاته المفتوحة إلى المنسّقين.",
            "Le membre ne fait plus partie de l'équipe ; ses orientations ouvertes ont été renvoyées aux coordinateurs.",
        ],
        "invitations": ["Invitations", "الدعوات", "Invitations"],
        "noInvitations": ["No invitation waits.", "لا دعوة في الانتظار.", "Aucune invitation en attente."],
        "invitedBy": ["Invited by", "دعاه", "Invité par"],
        "invitation.confirm": ["Confirm", "أكّد", "Confirmer"],
        "invitation.revoke": ["Revoke", "ألغِ", "Révoquer"],
        "invitationState.pending": ["Waiting for the invitee", "بانتظار المدعو", "En attente de la personne invitée"],
        "invitationState.accepted": ["Accepted: confirm it", "مقبولة: أكّدها", "Acceptée : à confirmer"],
        "invitationConfirmed": [
            "The invitation is confirmed: they are a member.", "تأكّدت الدعوة: صار عضوًا.",
            "L'invitation est confirmée : la personne est désormais membre.",
        ],
        "invitationRevoked": ["The invitation is revoked.", "أُلغيت الدعوة.", "L'invitation est révoquée."],
        "announce": ["Announce to the team", "إعلان للفريق", "Annoncer à l'équipe"],
        "announcementText": [
            "What every member should know (no patient's details)", "ما يجب أن يعرفه كل عضو (بلا تفاصيل المرضى)",
            "Ce que chaque membre doit savoir (aucune donnée de patient)",
        ],
        "auditEvents": ["The audit trail's events", "أحداث سجل التدقيق", "Événements du journal d'audit"],
        "auditActor": ["Who", "من", "Qui"],
        "auditAction": ["Action", "الإجراء", "Action"],
        "auditSubject": ["On", "على", "Objet"],
        "auditDetails": ["Details", "التفاصيل", "Détails"],
        "noAuditEvents": ["No event matches.", "لا حدث مطابق.", "Aucun événement ne correspond."],
        "auditBrowse": [
            "Browse the events, the newest first", "تصفّح الأحداث، الأحدث أولًا", "Parcourir les événements, les plus récents d'abord",
        ],
        "createUser": ["Create a user", "أنشئ مستخدمًا", "Créer un utilisateur"],
        "format.csv": [
            "Records, one row each (records.csv)", "السجلات، صف لكل سجل (records.csv)", "Fiches, une ligne par fiche (records.csv)",
        ],
        "format.long": [
            "Records, one row per answer (records_long.csv)", "السجلات، صف لكل إجابة (records_long.csv)",
            "Fiches, une ligne par réponse (records_long.csv)",
        ],
        "format.jsonl": [
            "Records as JSON lines (records.jsonl)", "السجلات بصيغة JSON lines (records.jsonl)",
            "Fiches au format JSON lines (records.jsonl)",
        ],
        "format.fhir": ["HL7 FHIR bundle (fhir-bundle.json)", "حزمة HL7 FHIR (fhir-bundle.json)", "Bundle HL7 FHIR (fhir-bundle.json)"],
        "format.codebook": [
            "Codebook, a table (codebook.csv)", "دليل الترميز، جدول (codebook.csv)", "Dictionnaire des données, en tableau (codebook.csv)",
        ],
        "format.codebook-md": [
            "Codebook to read (codebook.md)", "دليل الترميز للقراءة (codebook.md)", "Dictionnaire des données, à lire (codebook.md)",
        ],
        "format.datapackage": [
            "Frictionless data package (datapackage.json)", "حزمة بيانات Frictionless (datapackage.json)",
            "Paquet de données Frictionless (datapackage.json)",
        ],
        "format.spss": [
            "SPSS syntax to read the CSV (records.sps)", "أوامر SPSS لقراءة CSV (records.sps)",
            "Syntaxe SPSS pour lire le CSV (records.sps)",
        ],
        "format.escaped": [
            "Records, CSV safe for spreadsheets (records_escaped.csv)", "السجلات، CSV آمن لجداول البيانات (records_escaped.csv)",
            "Fiches, CSV sans risque pour les tableurs (records_escaped.csv)",
        ],
        "format.r": ["R script to read the CSV (records.R)", "برنامج R لقراءة CSV (records.R)", "Script R pour lire le CSV (records.R)"],
        "format.geojson": [
            "Places on a map (places.geojson)", "الأماكن على خريطة (places.geojson)", "Lieux sur une carte (places.geojson)",
        ],
        "format.sav": ["SPSS data file (records.sav)", "ملف بيانات SPSS (records.sav)", "Fichier de données SPSS (records.sav)"],
        "format.dta": ["Stata data file (records.dta)", "ملف بيانات Stata (records.dta)", "Fichier de données Stata (records.dta)"],
        "format.xlsx": ["Excel workbook (records.xlsx)", "مصنف Excel (records.xlsx)", "Classeur Excel (records.xlsx)"],
        "adminRecordNote": [
            "As an admin you see a record's review, its thread and who collected it, never its answers or who it is about: those are read by the record's team, and by those it is referred or granted to. Every read is on the audit trail.",
            "بصفتك مسؤولًا ترى مراجعة السجل ونقاشها ومن جمعه، ولا ترى إجاباته ولا من يخصّه: يقرؤها فريق السجل ومن أُحيل إليه أو مُنح الوصول إليه. كل قراءة مسجّلة في سجل التدقيق.",
            "En tant qu'administrateur, vous voyez la vérification d'une fiche, son fil de discussion et qui l'a collectée, jamais ses réponses ni la personne concernée : celles-ci sont lues par l'équipe de la fiche et par les personnes à qui elle est orientée ou à qui un accès est accordé. Chaque consultation est inscrite au journal d'audit.",
        ],
        "tokens": ["Tokens", "الرموز", "Jetons"],
        "timeZone": ["Time zone", "المنطقة الزمنية", "Fuseau horaire"],
        "timeZoneExplained": [
            "The team's pages show times in", "تعرض صفحات الفريق الأوقات بتوقيت",
            "Les pages de l'équipe affichent les heures dans le fuseau",
        ],
        "timeZoneSet": [
            "The team's time zone is set: its pages show times in it.", "ضُبطت المنطقة الزمنية للفريق: تعرض صفحاته الأوقات بها.",
            "Le fuseau horaire de l'équipe est défini : ses pages affichent désormais les heures dans ce fuseau.",
        ],
        "tokensOf": ["Tokens of", "رموز", "Jetons de l'utilisateur"],
        "tokensExplained": [
            "Each token is shown by the start of its fingerprint, never the token itself. Revoking one ends it at once: a script, a machine or an intake login that used it must be given a new one.",
            "يظهر كل رمز ببداية بصمته، لا الرمز نفسه. إلغاء رمز ينهيه فورًا: البرنامج أو الجهاز أو intake login الذي استعمله يحتاج رمزًا جديدًا.",
            "Chaque jeton est désigné par le début de son empreinte, jamais par le jeton lui-même. Révoquer un jeton y met fin immédiatement : le script, l'appareil ou la connexion intake login qui l'utilisait doit en recevoir un nouveau.",
        ],
        "noTokens": ["This user has no token.", "لا رمز لهذا المستخدم.", "Cet utilisateur n'a aucun jeton."],
        "token": ["Token", "الرمز", "Jeton"],
        "tokenUse": ["Made for", "صُنع لـ", "Créé pour"],
        "created": ["Made", "صُنع", "Création"],
        "expires": ["Ends", "ينتهي", "Expiration"],
        "expiredOn": ["ended", "انتهى", "expiré le"],
        "never": ["never", "أبدًا", "jamais"],
        "revokeToken": ["Revoke", "ألغِ", "Révoquer"],
        "tokenRevoked": ["The token is revoked.", "أُلغي الرمز.", "Le jeton est révoqué."],
        "tokenName.session": [
            "a sign-in (console or intake login)", "تسجيل دخول (الواجهة أو intake login)", "une connexion (console ou intake login)",
        ],
        "tokenName.console": ["a token made in the console", "رمز صُنع في الواجهة", "un jeton créé dans la console"],
        "recordConsent": ["Record consent", "سجّل الموافقة", "Enregistrer le consentement"],
        "consentChoose": [
            "Choose who the patient agreed to share with, and how they agreed.", "اختر مع من وافق المريض على المشاركة، وكيف وافق.",
            "Choisissez avec qui le patient a accepté de partager ses données, et comment il a donné son accord.",
        ],
        "consentRecorded": ["The consent is recorded.", "سُجّلت الموافقة.", "Le consentement est enregistré."],
        "editPatient": ["Change the patient's details", "عدّل بيانات المريض", "Modifier les informations du patient"],
        "save": ["Save", "احفظ", "Enregistrer"],
        "patientSaved": ["The patient's details are saved.", "حُفظت بيانات المريض.", "Les informations du patient sont enregistrées."],
        "patientStale": [
            "Someone changed this patient since you opened the page; open it again and redo your change.",
            "عدّل أحدٌ هذا المريض منذ فتحت الصفحة؛ افتحها من جديد وأعد تعديلك.",
            "Quelqu'un a modifié ce patient depuis que vous avez ouvert la page ; rouvrez-la et refaites votre modification.",
        ],
        "externalIdTaken": [
            "Another patient has this file number.", "لمريض آخر رقم الملف هذا.", "Un autre patient a déjà ce numéro de dossier.",
        ],
        "dateOfBirthFormat": [
            "The date of birth is a date such as 1990-04-12, or empty.", "تاريخ الميلاد تاريخ مثل 1990-04-12، أو فارغ.",
            "La date de naissance doit être une date comme 1990-04-12, ou rester vide.",
        ],
        "newPassword": ["Password (10 characters or more)", "كلمة المرور (١٠ أحرف أو أكثر)", "Mot de passe (10 caractères ou plus)"],
        "teamOptional": ["Team (empty: none yet)", "الفريق (فارغ: لا فريق بعد)", "Équipe (vide : aucune pour l'instant)"],
        "userCreated": ["The user is created.", "أُنشئ المستخدم.", "L'utilisateur est créé."],
        "announced": [
            "The announcement is in every member's inbox.", "وصل الإعلان إلى بريد كل عضو.",
            "L'annonce est dans la boîte de réception de chaque membre.",
        ],
        "from": ["From", "من", "De"],
        "to": ["To", "إلى", "À"],
        "actions": ["Actions", "الإجراءات", "Actions"],
        "accept": ["Accept", "اقبل", "Accepter"],
        "decline": ["Decline", "ارفض", "Refuser"],
        "complete": ["Complete", "أكمل", "Terminer"],
        "withdraw": ["Withdraw", "اسحب", "Retirer"],
        "formats": ["Files", "الملفات", "Fichiers"],
        "options": ["Options", "الخيارات", "Options"],
        "dropFreeText": ["Leave out free text", "استبعد النص الحر", "Exclure le texte libre"],
        "shiftDates": [
            "Shift dates (per patient, secret)", "أزح التواريخ (لكل مريض، سرًا)", "Décaler les dates (par patient, décalage secret)",
        ],
        "includeIdentifiers": ["Include names and identifiers", "أدرج الأسماء والمعرّفات", "Inclure les noms et les identifiants"],
        "download": ["Download the archive", "نزّل الأرشيف", "Télécharger l'archive"],
        "back": ["Back", "رجوع", "Retour"],
        "problemTitle": ["Something is in the way", "هناك عائق", "Impossible de continuer"],
        "databaseUnavailable": [
            "The database is unavailable; try again in a minute.", "قاعدة البيانات غير متاحة؛ حاول مرة أخرى بعد دقيقة.",
            "La base de données est indisponible ; réessayez dans une minute.",
        ],
        "serverFailed": [
            "The server failed; the error is logged.", "تعطّل الخادم؛ سُجّل الخطأ.", "Le serveur a échoué ; l'erreur est journalisée.",
        ],
        "notFound": [
            "There is no such page, or it is not yours to see.", "لا توجد صفحة كهذه، أو لا يحق لك رؤيتها.",
            "Cette page n'existe pas, ou vous n'avez pas le droit de la voir.",
        ],
        "forbiddenPage": [
            "Your role does not open this page.", "دورك لا يتيح فتح هذه الصفحة.", "Votre rôle ne donne pas accès à cette page.",
        ],
        "staleForm": [
            "This form was open too long or came from elsewhere; it was not sent. Load the page again and repeat.",
            "بقي هذا النموذج مفتوحًا طويلًا أو جاء من مكان آخر؛ لم يُرسل. أعد تحميل الصفحة وكرر.",
            "Ce formulaire est resté ouvert trop longtemps ou provient d'ailleurs ; il n'a pas été envoyé. Rechargez la page et recommencez.",
        ],
        "reviewSaved": ["The review is saved.", "حُفظت المراجعة.", "La vérification est enregistrée."],
        "commentSaved": ["Added to the thread.", "أُضيف إلى السلسلة.", "Ajouté au fil de discussion."],
        "reopened": [
            "Reopened: the record can be edited again.", "أُعيد الفتح: يمكن تعديل السجل مرة أخرى.",
            "Rouverte : la fiche peut de nouveau être modifiée.",
        ],
        "allRead": ["Everything is marked read.", "عُلّم كل شيء كمقروء.", "Tout est marqué comme lu."],
        "referralDone": ["The referral is updated.", "حُدّثت الإحالة.", "L'orientation est mise à jour."],
        "noQuestionnaire": ["No questionnaire is published yet.", "لم يُنشر أي استبيان بعد.", "Aucun questionnaire n'est encore publié."],
        "team": ["Team", "الفريق", "Équipe"],
        "teams": ["Teams", "الفرق", "Équipes"],
        "members": ["Members", "الأعضاء", "Membres"],
        "role": ["Role", "الدور", "Rôle"],
        "since": ["Since", "منذ", "Depuis"],
        "invite": ["Invite", "ادعُ", "Inviter"],
        "history": ["History", "السجل التاريخي", "Historique"],
        "passcodeTitle": ["The invitation's passcode", "رمز الدعوة", "Le code de l'invitation"],
        "passcodeOnce": [
            "Give it to the invitee by another way than this page's: it is shown only now, and never again.",
            "سلّمه للمدعو بطريقة أخرى غير هذه الصفحة: يُعرض الآن فقط ولن يُعرض مرة أخرى.",
            "Transmettez-le à la personne invitée par un autre moyen que cette page : il n'est affiché que cette fois, et plus jamais.",
        ],
        "makeCoordinator": ["Make coordinator", "اجعله منسقًا", "Nommer coordinateur"],
        "makeFieldworker": ["Make field worker", "اجعله عاملًا ميدانيًا", "Nommer agent de terrain"],
        "joined": ["joined as", "انضم بصفة", "a rejoint l'équipe comme"],
        "left": ["left", "غادر", "a quitté l'équipe"],
        "roleChanged": ["became", "أصبح", "est désormais"],
        "patients": ["Patients", "المرضى", "Patients"],
        "name": ["Name", "الاسم", "Nom"],
        "noPatients": ["No patient matches.", "لا يوجد مريض مطابق.", "Aucun patient ne correspond."],
        "sharing": ["Sharing", "المشاركة", "Partage"],
        "groups": ["Data groups", "مجموعات البيانات", "Groupes de données"],
        "archived": ["archived", "مؤرشف", "archivé"],
        "consentHistory": ["Consent history", "سجل الموافقة", "Historique du consentement"],
        "when": ["When", "متى", "Date"],
        "method": ["Method", "الطريقة", "Mode"],
        "recordedBy": ["Recorded by", "سجّله", "Enregistré par"],
        "reports": ["Dated reports", "التقارير المؤرخة", "Rapports datés"],
        "noReports": ["No reports.", "لا توجد تقارير.", "Aucun rapport."],
        "questionnaires": ["Questionnaires", "الاستبيانات", "Questionnaires"],
        "version": ["Version", "النسخة", "Version"],
        "titleWord": ["Title", "العنوان", "Titre"],
        "published": ["Published", "تاريخ النشر", "Date de publication"],
        "publishNew": ["Publish a new version", "انشر نسخة جديدة", "Publier une nouvelle version"],
        "folderFiles": [
            "The questionnaire's files (its section files, their translations, manifest.txt)",
            "ملفات الاستبيان (ملفات الأقسام وترجماتها وmanifest.txt)",
            "Les fichiers du questionnaire (ses fichiers de section, leurs traductions, manifest.txt)",
        ],
        "listFiles": [
            "The shared lists it uses, if any", "القوائم المشتركة التي يستخدمها، إن وجدت",
            "Les listes partagées qu'il utilise, le cas échéant",
        ],
        "asDraft": [
            "As a draft, to try before publishing", "كمسودة، للتجربة قبل النشر", "En brouillon, pour l'essayer avant de le publier",
        ],
        "publish": ["Publish", "انشر", "Publier"],
        "publishedDone": ["The version is stored.", "حُفظت النسخة.", "La version est enregistrée."],
        "stateDone": ["The version's state is changed.", "تغيّرت حالة النسخة.", "Le statut de la version est modifié."],
        "toPublished": ["Publish", "انشر", "Publier"],
        "toClosed": ["Close to new records", "أغلق أمام السجلات الجديدة", "Fermer aux nouvelles fiches"],
        "toRetired": ["Retire", "أوقف", "Retirer"],
        "admin": ["Administration", "الإدارة", "Administration"],
        "users": ["Users", "المستخدمون", "Utilisateurs"],
        "auditTrail": ["The audit trail", "سجل التدقيق", "Journal d'audit"],
        "auditSound": [
            "Verified: %d events, each chained to the one before; none altered or missing.",
            "تم التحقق: %d حدثًا، كل منها مرتبط بالسابق؛ لا شيء معدّل أو مفقود.",
            "Vérifié : %d événements, chacun chaîné au précédent ; aucun n'est altéré ni manquant.",
        ],
        "auditBroken": ["Verification FAILED: %@", "فشل التحقق: %@", "La vérification a ÉCHOUÉ : %@"],
        "unlock": ["Unlock", "افتح القفل", "Déverrouiller"],
        "lockedState": ["locked", "مقفل", "verrouillé"],
        "disabledState": ["disabled", "معطّل", "désactivé"],
        "activeState": ["active", "نشط", "actif"],
        "unlocked": ["The account is unlocked.", "فُتح قفل الحساب.", "Le compte est déverrouillé."],
        "optionFieldworker": ["Field worker", "عامل ميداني", "Agent de terrain"],
        "optionCoordinator": ["Coordinator", "منسق", "Coordinateur"],
        "role.fieldworker": ["field worker", "عامل ميداني", "agent de terrain"],
        "role.coordinator": ["coordinator", "منسق", "coordinateur"],
        "role.researcher": ["researcher", "باحث", "chercheur"],
        "role.admin": ["admin", "مسؤول", "administrateur"],
    ]
}
