import Foundation

/// The time zone a page shows times in, for the request it answers: the user's team's (set by
/// its coordinators, `PATCH /v1/teams/{team}`), UTC otherwise.
enum ConsoleZone {
    static let utc = TimeZone(identifier: "UTC")!
    @TaskLocal static var current: TimeZone = utc
}

/// The console's two languages: English and Arabic (right to left), chosen per browser and
/// remembered in a cookie. Every word a page shows comes from here; numbers and dates are written
/// in the language's own form (Arabic-Indic digits for Arabic).
enum ConsoleLanguage: String, CaseIterable, Sendable {
    case en, ar

    var direction: String { self == .ar ? "rtl" : "ltr" }
    var other: ConsoleLanguage { self == .ar ? .en : .ar }
    /// The language's own name, for the switch.
    var name: String { self == .ar ? "العربية" : "English" }
    var locale: Locale { Locale(identifier: self == .ar ? "ar" : "en_GB") }

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

    func decimal(_ value: Double) -> String { digits(String(value)) }

    /// A time as the user reads it, to the minute, in the time zone of the page (``ConsoleZone``:
    /// the user's team's, UTC by default), named after it.
    func time(_ date: Date) -> String {
        let zone = ConsoleZone.current
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = zone
        formatter.setLocalizedDateFormatFromTemplate("yyyyMMMdHHmm")
        // (Linux names UTC "GMT".)
        let name = zone == ConsoleZone.utc || ["UTC", "GMT"].contains(zone.identifier) ? "UTC" : zone.abbreviation(for: date) ?? zone.identifier
        return digits(formatter.string(from: date)) + " " + digits(name)
    }

    /// A day (`2026-11-26`) as the user reads it.
    func day(_ key: String) -> String {
        let parser = DateFormatter()
        parser.locale = Locale(identifier: "en_US_POSIX")
        parser.timeZone = TimeZone(identifier: "UTC")
        parser.dateFormat = "yyyy-MM-dd"
        guard let date = parser.date(from: key) else { return key }
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.setLocalizedDateFormatFromTemplate("EEEMMMd")
        return digits(formatter.string(from: date))
    }

    subscript(_ key: String) -> String { ConsoleText.strings[key]?[self == .ar ? 1 : 0] ?? key }

    /// A code the API uses (`accepted`, `urgent`, `all_qualified_researchers`) as this language
    /// says it: the string `kind.code`, or the code itself for one this console does not know.
    func word(_ kind: String, _ code: String) -> String { ConsoleText.strings["\(kind).\(code)"]?[self == .ar ? 1 : 0] ?? code }

    /// Every string, for a template's `t`.
    var table: [String: String] { ConsoleText.strings.mapValues { $0[self == .ar ? 1 : 0] } }
}

enum ConsoleText {
    /// key: [English, Arabic]
    static let strings: [String: [String]] = [
        "skip": ["Skip to the content", "انتقل إلى المحتوى"],
        "menu": ["Console", "لوحة التحكم"],
        "day": ["Day", "اليوم"],
        "today": ["Today", "اليوم"],
        "teamDay": ["The team's day", "يوم الفريق"],
        "records": ["Records", "السجلات"],
        "record": ["Record", "السجل"],
        "inbox": ["Inbox", "البريد الوارد"],
        "referrals": ["Referrals", "الإحالات"],
        "referral": ["Referral", "الإحالة"],
        "exports": ["Exports", "التصدير"],
        "signIn": ["Sign in", "تسجيل الدخول"],
        "signOut": ["Sign out", "تسجيل الخروج"],
        "signOutEverywhere": ["Sign out everywhere", "الخروج من كل الأجهزة"],
        "signedOut": ["You are signed out of this browser.", "تم تسجيل خروجك من هذا المتصفح."],
        "signedOutEverywhere": [
            "You are signed out on every browser and every machine signed in with intake login; tokens made for scripts and enrolled machines stay.",
            "تم تسجيل خروجك من كل المتصفحات ومن كل جهاز سجّل الدخول بالأمر intake login؛ تبقى الرموز المصنوعة للبرامج والأجهزة المسجّلة.",
        ],
        "username": ["Username", "اسم المستخدم"],
        "password": ["Password", "كلمة المرور"],
        "badCredentials": ["The username or the password is wrong.", "اسم المستخدم أو كلمة المرور غير صحيحة."],
        "throttled": ["Too many failed sign-ins: wait a minute and try again.", "محاولات فاشلة كثيرة: انتظر دقيقة ثم حاول مرة أخرى."],
        "lockedAccount": ["This account is locked after repeated failed sign-ins; ask an admin to unlock it.", "هذا الحساب مقفل بعد محاولات فاشلة متكررة؛ اطلب من المسؤول فتحه."],
        "unread": ["Unread", "غير مقروءة"],
        "liveChanged": ["Something new arrived in your inbox; reload the page to see it.", "وصل شيء جديد إلى بريدك الوارد؛ أعد تحميل الصفحة لتراه."],
        "summary": ["Summary", "ملخص"],
        "receivedToday": ["records received today", "سجلات وصلت اليوم"],
        "receivedWeek": ["records in the last 7 days", "سجلات في آخر ٧ أيام"],
        "toReview": ["to review (received or edited)", "بانتظار المراجعة (مستلمة أو معدّلة)"],
        "openReferrals": ["open referrals", "إحالات مفتوحة"],
        "perDay": ["Records per day (last 14 days)", "السجلات في اليوم (آخر ١٤ يومًا)"],
        "perQuestionnaire": ["Records per questionnaire (last 14 days)", "السجلات لكل استبيان (آخر ١٤ يومًا)"],
        "perCollector": ["Records per collector (last 14 days)", "السجلات لكل جامع بيانات (آخر ١٤ يومًا)"],
        "devices": ["Machines: drafts and queues as last reported", "الأجهزة: المسودات وقوائم الانتظار كما أُبلغ آخر مرة"],
        "devicesCaption": ["Enrolled machines", "الأجهزة المسجلة"],
        "noDevices": ["No machine is enrolled.", "لا يوجد جهاز مسجل."],
        "device": ["Machine", "الجهاز"],
        "user": ["User", "المستخدم"],
        "lastSeen": ["Last seen", "آخر ظهور"],
        "queue": ["Waiting to upload", "بانتظار الرفع"],
        "reviewState": ["Review state", "حالة المراجعة"],
        "reviewStates": ["Only records in these review states (none: all)", "فقط السجلات بحالات المراجعة هذه (لا شيء: الكل)"],
        "questionnaire": ["Questionnaire", "الاستبيان"],
        "collector": ["Collector", "جامع البيانات"],
        "changedFrom": ["Changed from", "تغيّر من"],
        "changedTo": ["to", "إلى"],
        "filter": ["Show", "عرض"],
        "search": ["Find a patient", "ابحث عن مريض"],
        "familyName": ["Family name", "اسم العائلة"],
        "givenName": ["Given name", "الاسم الأول"],
        "externalId": ["File number", "رقم الملف"],
        "dateOfBirth": ["Date of birth", "تاريخ الميلاد"],
        "sex": ["Sex", "الجنس"],
        "sex.female": ["Female", "أنثى"],
        "sex.male": ["Male", "ذكر"],
        "sex.other": ["Other", "آخر"],
        "sex.unknown": ["Unknown", "غير معروف"],
        "registryPatient": ["Registry patient", "مريض السجل"],
        "referralState.open": ["Open", "مفتوحة"],
        "referralState.accepted": ["Accepted", "مقبولة"],
        "referralState.completed": ["Completed", "مكتملة"],
        "referralState.declined": ["Declined", "مرفوضة"],
        "referralState.withdrawn": ["Withdrawn", "مسحوبة"],
        "referralState.closed": ["Closed (record deleted)", "مغلقة (حُذف السجل)"],
        "priority.routine": ["Routine", "عادية"],
        "priority.urgent": ["Urgent", "عاجلة"],
        "priority.emergency": ["Emergency", "طارئة"],
        "sharing.no_sharing": ["No sharing", "بلا مشاركة"],
        "sharing.sponsors_and_partners": ["Sponsors and partners", "الجهات الراعية والشركاء"],
        "sharing.all_qualified_researchers": ["All qualified researchers", "كل الباحثين المؤهلين"],
        "method.verbal": ["Verbal", "شفهية"],
        "method.written": ["Written", "كتابية"],
        "method.electronic": ["Electronic", "إلكترونية"],
        "questionnaireState.draft": ["Draft", "مسودة"],
        "questionnaireState.published": ["Published", "منشورة"],
        "questionnaireState.closed": ["Closed", "مغلقة"],
        "questionnaireState.retired": ["Retired", "متقاعدة"],
        "noRecords": ["No records.", "لا توجد سجلات."],
        "patient": ["Patient", "المريض"],
        "changed": ["Changed", "آخر تعديل"],
        "all": ["All", "الكل"],
        "stateReceived": ["Received", "مستلم"],
        "stateHasIssues": ["Has issues", "به مشكلات"],
        "stateEdited": ["Edited", "معدّل"],
        "stateApproved": ["Approved", "معتمد"],
        "stateRejected": ["Rejected", "مرفوض"],
        "locked": ["(locked)", "(مقفل)"],
        "revision": ["Revision", "النسخة"],
        "review": ["Review", "المراجعة"],
        "setState": ["Set the review", "حدد المراجعة"],
        "lockIt": ["Lock against edits (approved only)", "اقفل ضد التعديل (للمعتمد فقط)"],
        "comment": ["Comment (the collector reads it in the thread)", "تعليق (يقرؤه جامع البيانات في سلسلة المراجعة)"],
        "saveReview": ["Save the review", "احفظ المراجعة"],
        "reopen": ["Reopen for edits", "أعد الفتح للتعديل"],
        "addComment": ["Add to the thread", "أضف إلى السلسلة"],
        "send": ["Send", "أرسل"],
        "set": ["set", "حدّد"],
        "editedIt": ["edited the record", "عدّل السجل"],
        "lockedIt": ["locked it", "قفله"],
        "reopenedIt": ["reopened it", "أعاد فتحه"],
        "changedSince": ["changed in the last revision", "تغيّر في آخر نسخة"],
        "revisions": ["Revisions", "النسخ"],
        "grants": ["Grants beyond the team", "الأذونات خارج الفريق"],
        "access": ["Access", "الوصول"],
        "until": ["Until", "حتى"],
        "endedState": ["ended", "منتهٍ"],
        "newToken": ["New token", "رمز جديد"],
        "tokenTitle": ["The new token", "الرمز الجديد"],
        "tokenOnce": ["Copy it now into the script or machine that uses it: it is shown only now, and never again. It lasts 90 days.", "انسخه الآن إلى البرنامج أو الجهاز الذي يستخدمه: يُعرض الآن فقط ولن يُعرض مرة أخرى. صالح ٩٠ يومًا."],
        "lastChanges": ["What the last revision changed", "ما غيّرته آخر نسخة"],
        "question": ["Question", "السؤال"],
        "before": ["Before", "قبل"],
        "after": ["After", "بعد"],
        "savedBy": ["Saved by", "حفظه"],
        "savedAt": ["Saved", "وقت الحفظ"],
        "changedQuestions": ["Questions changed", "الأسئلة التي تغيرت"],
        "firstRevision": ["first revision", "النسخة الأولى"],
        "none": ["none", "لا شيء"],
        "yes": ["Yes", "نعم"],
        "no": ["No", "لا"],
        "unanswered": ["—", "—"],
        "identifyingHidden": ["(identifying: not shown)", "(معلومة تعريفية: غير معروضة)"],
        "file": ["file", "ملف"],
        "instance": ["Entry", "إدخال"],
        "nothingNew": ["Nothing new.", "لا جديد."],
        "markAllRead": ["Mark all read", "علّم الكل كمقروء"],
        "inboxCount": ["{shown} of {total} unread, the newest first", "{shown} من {total} غير مقروءة، الأحدث أولًا"],
        "olderPage": ["Older", "الأقدم"],
        "pageCount": ["{first}–{last} of {total}, the most recently changed first", "{first}–{last} من {total}، الأحدث تعديلًا أولًا"],
        "previousPage": ["Previous", "السابق"],
        "patientsCount": ["{shown} patients match, the closest first.", "المرضى المطابقون: {shown}، الأقرب أولًا."],
        "patientsMore": ["The {shown} closest matches of more: add to the name or give the file number to narrow it.", "أقرب {shown} من نتائج أكثر: أضف إلى الاسم أو اذكر رقم الملف لتضييقها."],
        "searchCount": ["Matches {first}–{last}, the closest first", "النتائج {first}–{last}، الأقرب أولًا"],
        "nextPage": ["Next", "التالي"],
        "newestPage": ["Newest", "الأحدث"],
        "open": ["Open", "افتح"],
        "received": ["Received", "الواردة"],
        "sent": ["Sent", "المرسلة"],
        "noReferrals": ["No referrals.", "لا توجد إحالات."],
        "stateWord": ["State", "الحالة"],
        "priority": ["Priority", "الأولوية"],
        "reason": ["Reason", "السبب"],
        "alerts": ["Alerts this record raises", "تنبيهات هذا السجل"],
        "alertFlag": ["alert", "تنبيه"],
        "patientRecords": ["The patient's records", "سجلات المريض"],
        "removeMember": ["Remove from the team", "أخرِج من الفريق"],
        "memberRemoved": ["The member is out of the team; their open referrals went back to the coordinators.", "خرج العضو من الفريق؛ عادت إحالاته المفتوحة إلى المنسّقين."],
        "invitations": ["Invitations", "الدعوات"],
        "noInvitations": ["No invitation waits.", "لا دعوة في الانتظار."],
        "invitedBy": ["Invited by", "دعاه"],
        "invitation.confirm": ["Confirm", "أكّد"],
        "invitation.revoke": ["Revoke", "ألغِ"],
        "invitationState.pending": ["Waiting for the invitee", "بانتظار المدعو"],
        "invitationState.accepted": ["Accepted: confirm it", "مقبولة: أكّدها"],
        "invitationConfirmed": ["The invitation is confirmed: they are a member.", "تأكّدت الدعوة: صار عضوًا."],
        "invitationRevoked": ["The invitation is revoked.", "أُلغيت الدعوة."],
        "announce": ["Announce to the team", "إعلان للفريق"],
        "announcementText": ["What every member should know (no patient's details)", "ما يجب أن يعرفه كل عضو (بلا تفاصيل المرضى)"],
        "auditEvents": ["The audit trail's events", "أحداث سجل التدقيق"],
        "auditActor": ["Who", "من"],
        "auditAction": ["Action", "الإجراء"],
        "auditSubject": ["On", "على"],
        "auditDetails": ["Details", "التفاصيل"],
        "noAuditEvents": ["No event matches.", "لا حدث مطابق."],
        "auditBrowse": ["Browse the events, the newest first", "تصفّح الأحداث، الأحدث أولًا"],
        "createUser": ["Create a user", "أنشئ مستخدمًا"],
        "format.csv": ["Records, one row each (records.csv)", "السجلات، صف لكل سجل (records.csv)"],
        "format.long": ["Records, one row per answer (records_long.csv)", "السجلات، صف لكل إجابة (records_long.csv)"],
        "format.jsonl": ["Records as JSON lines (records.jsonl)", "السجلات بصيغة JSON lines (records.jsonl)"],
        "format.fhir": ["HL7 FHIR bundle (fhir-bundle.json)", "حزمة HL7 FHIR (fhir-bundle.json)"],
        "format.codebook": ["Codebook, a table (codebook.csv)", "دليل الترميز، جدول (codebook.csv)"],
        "format.codebook-md": ["Codebook to read (codebook.md)", "دليل الترميز للقراءة (codebook.md)"],
        "format.datapackage": ["Frictionless data package (datapackage.json)", "حزمة بيانات Frictionless (datapackage.json)"],
        "format.spss": ["SPSS syntax to read the CSV (records.sps)", "أوامر SPSS لقراءة CSV (records.sps)"],
        "format.escaped": ["Records, CSV safe for spreadsheets (records_escaped.csv)", "السجلات، CSV آمن لجداول البيانات (records_escaped.csv)"],
        "format.r": ["R script to read the CSV (records.R)", "برنامج R لقراءة CSV (records.R)"],
        "format.geojson": ["Places on a map (places.geojson)", "الأماكن على خريطة (places.geojson)"],
        "format.sav": ["SPSS data file (records.sav)", "ملف بيانات SPSS (records.sav)"],
        "format.dta": ["Stata data file (records.dta)", "ملف بيانات Stata (records.dta)"],
        "format.xlsx": ["Excel workbook (records.xlsx)", "مصنف Excel (records.xlsx)"],
        "adminRecordNote": [
            "As an admin you see a record's review, its thread and who collected it, never its answers or who it is about: those are read by the record's team, and by those it is referred or granted to. Every read is on the audit trail.",
            "بصفتك مسؤولًا ترى مراجعة السجل ونقاشها ومن جمعه، ولا ترى إجاباته ولا من يخصّه: يقرؤها فريق السجل ومن أُحيل إليه أو مُنح الوصول إليه. كل قراءة مسجّلة في سجل التدقيق.",
        ],
        "tokens": ["Tokens", "الرموز"],
        "timeZone": ["Time zone", "المنطقة الزمنية"],
        "timeZoneExplained": ["The team's pages show times in", "تعرض صفحات الفريق الأوقات بتوقيت"],
        "timeZoneSet": ["The team's time zone is set: its pages show times in it.", "ضُبطت المنطقة الزمنية للفريق: تعرض صفحاته الأوقات بها."],
        "tokensOf": ["Tokens of", "رموز"],
        "tokensExplained": [
            "Each token is shown by the start of its fingerprint, never the token itself. Revoking one ends it at once: a script, a machine or an intake login that used it must be given a new one.",
            "يظهر كل رمز ببداية بصمته، لا الرمز نفسه. إلغاء رمز ينهيه فورًا: البرنامج أو الجهاز أو intake login الذي استعمله يحتاج رمزًا جديدًا.",
        ],
        "noTokens": ["This user has no token.", "لا رمز لهذا المستخدم."],
        "token": ["Token", "الرمز"],
        "tokenUse": ["Made for", "صُنع لـ"],
        "created": ["Made", "صُنع"],
        "expires": ["Ends", "ينتهي"],
        "expiredOn": ["ended", "انتهى"],
        "never": ["never", "أبدًا"],
        "revokeToken": ["Revoke", "ألغِ"],
        "tokenRevoked": ["The token is revoked.", "أُلغي الرمز."],
        "tokenName.session": ["a sign-in (console or intake login)", "تسجيل دخول (الواجهة أو intake login)"],
        "tokenName.console": ["a token made in the console", "رمز صُنع في الواجهة"],
        "recordConsent": ["Record consent", "سجّل الموافقة"],
        "consentChoose": ["Choose who the patient agreed to share with, and how they agreed.", "اختر مع من وافق المريض على المشاركة، وكيف وافق."],
        "consentRecorded": ["The consent is recorded.", "سُجّلت الموافقة."],
        "editPatient": ["Change the patient's details", "عدّل بيانات المريض"],
        "save": ["Save", "احفظ"],
        "patientSaved": ["The patient's details are saved.", "حُفظت بيانات المريض."],
        "patientStale": ["Someone changed this patient since you opened the page; open it again and redo your change.", "عدّل أحدٌ هذا المريض منذ فتحت الصفحة؛ افتحها من جديد وأعد تعديلك."],
        "externalIdTaken": ["Another patient has this file number.", "لمريض آخر رقم الملف هذا."],
        "dateOfBirthFormat": ["The date of birth is a date such as 1990-04-12, or empty.", "تاريخ الميلاد تاريخ مثل 1990-04-12، أو فارغ."],
        "newPassword": ["Password (10 characters or more)", "كلمة المرور (١٠ أحرف أو أكثر)"],
        "teamOptional": ["Team (empty: none yet)", "الفريق (فارغ: لا فريق بعد)"],
        "userCreated": ["The user is created.", "أُنشئ المستخدم."],
        "announced": ["The announcement is in every member's inbox.", "وصل الإعلان إلى بريد كل عضو."],
        "from": ["From", "من"],
        "to": ["To", "إلى"],
        "actions": ["Actions", "الإجراءات"],
        "accept": ["Accept", "اقبل"],
        "decline": ["Decline", "ارفض"],
        "complete": ["Complete", "أكمل"],
        "withdraw": ["Withdraw", "اسحب"],
        "formats": ["Files", "الملفات"],
        "options": ["Options", "الخيارات"],
        "dropFreeText": ["Leave out free text", "استبعد النص الحر"],
        "shiftDates": ["Shift dates (per patient, secret)", "أزح التواريخ (لكل مريض، سرًا)"],
        "includeIdentifiers": ["Include names and identifiers", "أدرج الأسماء والمعرّفات"],
        "download": ["Download the archive", "نزّل الأرشيف"],
        "back": ["Back", "رجوع"],
        "problemTitle": ["Something is in the way", "هناك عائق"],
        "notFound": ["There is no such page, or it is not yours to see.", "لا توجد صفحة كهذه، أو لا يحق لك رؤيتها."],
        "forbiddenPage": ["Your role does not open this page.", "دورك لا يتيح فتح هذه الصفحة."],
        "staleForm": ["This form was open too long or came from elsewhere; it was not sent. Load the page again and repeat.", "بقي هذا النموذج مفتوحًا طويلًا أو جاء من مكان آخر؛ لم يُرسل. أعد تحميل الصفحة وكرر."],
        "reviewSaved": ["The review is saved.", "حُفظت المراجعة."],
        "commentSaved": ["Added to the thread.", "أُضيف إلى السلسلة."],
        "reopened": ["Reopened: the record can be edited again.", "أُعيد الفتح: يمكن تعديل السجل مرة أخرى."],
        "allRead": ["Everything is marked read.", "عُلّم كل شيء كمقروء."],
        "referralDone": ["The referral is updated.", "حُدّثت الإحالة."],
        "noQuestionnaire": ["No questionnaire is published yet.", "لم يُنشر أي استبيان بعد."],
        "team": ["Team", "الفريق"],
        "teams": ["Teams", "الفرق"],
        "members": ["Members", "الأعضاء"],
        "role": ["Role", "الدور"],
        "since": ["Since", "منذ"],
        "invite": ["Invite", "ادعُ"],
        "history": ["History", "السجل التاريخي"],
        "passcodeTitle": ["The invitation's passcode", "رمز الدعوة"],
        "passcodeOnce": ["Give it to the invitee by another way than this page's: it is shown only now, and never again.", "سلّمه للمدعو بطريقة أخرى غير هذه الصفحة: يُعرض الآن فقط ولن يُعرض مرة أخرى."],
        "makeCoordinator": ["Make coordinator", "اجعله منسقًا"],
        "makeFieldworker": ["Make field worker", "اجعله عاملًا ميدانيًا"],
        "joined": ["joined as", "انضم بصفة"],
        "left": ["left", "غادر"],
        "roleChanged": ["became", "أصبح"],
        "patients": ["Patients", "المرضى"],
        "name": ["Name", "الاسم"],
        "noPatients": ["No patient matches.", "لا يوجد مريض مطابق."],
        "sharing": ["Sharing", "المشاركة"],
        "groups": ["Data groups", "مجموعات البيانات"],
        "archived": ["archived", "مؤرشف"],
        "consentHistory": ["Consent history", "سجل الموافقة"],
        "when": ["When", "متى"],
        "method": ["Method", "الطريقة"],
        "recordedBy": ["Recorded by", "سجّله"],
        "reports": ["Dated reports", "التقارير المؤرخة"],
        "noReports": ["No reports.", "لا توجد تقارير."],
        "questionnaires": ["Questionnaires", "الاستبيانات"],
        "version": ["Version", "النسخة"],
        "titleWord": ["Title", "العنوان"],
        "published": ["Published", "تاريخ النشر"],
        "publishNew": ["Publish a new version", "انشر نسخة جديدة"],
        "folderFiles": ["The questionnaire's files (its section files, their translations, manifest.txt)", "ملفات الاستبيان (ملفات الأقسام وترجماتها وmanifest.txt)"],
        "listFiles": ["The shared lists it uses, if any", "القوائم المشتركة التي يستخدمها، إن وجدت"],
        "asDraft": ["As a draft, to try before publishing", "كمسودة، للتجربة قبل النشر"],
        "publish": ["Publish", "انشر"],
        "publishedDone": ["The version is stored.", "حُفظت النسخة."],
        "stateDone": ["The version's state is changed.", "تغيّرت حالة النسخة."],
        "toPublished": ["Publish", "انشر"],
        "toClosed": ["Close to new records", "أغلق أمام السجلات الجديدة"],
        "toRetired": ["Retire", "أوقف"],
        "admin": ["Administration", "الإدارة"],
        "users": ["Users", "المستخدمون"],
        "auditTrail": ["The audit trail", "سجل التدقيق"],
        "auditSound": ["Verified: %d events, each chained to the one before; none altered or missing.", "تم التحقق: %d حدثًا، كل منها مرتبط بالسابق؛ لا شيء معدّل أو مفقود."],
        "auditBroken": ["Verification FAILED: %@", "فشل التحقق: %@"],
        "unlock": ["Unlock", "افتح القفل"],
        "lockedState": ["locked", "مقفل"],
        "disabledState": ["disabled", "معطّل"],
        "activeState": ["active", "نشط"],
        "unlocked": ["The account is unlocked.", "فُتح قفل الحساب."],
        "optionFieldworker": ["Field worker", "عامل ميداني"],
        "optionCoordinator": ["Coordinator", "منسق"],
        "role.fieldworker": ["field worker", "عامل ميداني"],
        "role.coordinator": ["coordinator", "منسق"],
        "role.researcher": ["researcher", "باحث"],
        "role.admin": ["admin", "مسؤول"],
    ]
}
