import IntakeCore

/// The form's messages in Arabic.
///
/// Commands and other Latin text inside a sentence (`:finish`, `intake flush`) start with a
/// left-to-right mark, so that in a right-to-left line their colon stays before the word.
enum ArabicText {
    /// A command or a Latin word set inside Arabic text.
    private static func latin(_ text: String) -> String { "\u{200E}" + text }

    /// A file question's kind, in Arabic.
    private static func fileKind(_ kind: AttachmentKind) -> String {
        switch kind {
        case .photo: "صورة"
        case .audio: "تسجيل صوتي"
        case .document: "مستند"
        case .signature: "توقيع"
        }
    }

    static func text(_ text: FormText) -> String {
        switch text {
        case .formTitle(let title, let id, let version): "\(title) (\(latin(id))، الإصدار \(version))"
        case .recordId(let id): "السجل \(latin(id))"
        case .resuming(let place, let answers): "متابعة المسودة عند \(describe(place))؛ عدد الإجابات حتى الآن: \(answers)."
        case .typeHelp: "اكتب \(latin(":help")) لعرض الأوامر. تُحفظ كل إجابة فور كتابتها."
        case .editingRevision(let revision): "تعديل سجل الخادم عند المراجعة \(revision)."
        case .followUpOfCase(let id, let list, let name): "متابعة الحالة \(latin(id)) (\(latin(list))) للمريض \(name): بيانات المريض معبّأة."
        case .registryPatient(let name, let id): "المريض \(name)، من سجل المرضى (\(latin(id))): بيانات المريض معبّأة."

        case .patientHeading: "── بيانات المريض ──"
        case .sectionHeading(let number, let count, let title): "── القسم \(number) من \(count): \(title) ──"
        case .patientField(let field):
            switch field {
            case .givenName: "الاسم الأول"
            case .familyName: "اسم العائلة"
            case .dateOfBirth: "تاريخ الميلاد"
            case .sex: "الجنس"
            case .externalId: "الرقم المرجعي (رقم الحالة أو الملف)"
            }
        case .patientHint(let field):
            switch field {
            case .givenName, .familyName: "نص"
            case .dateOfBirth: "تاريخ بصيغة \(latin("YYYY-MM-DD"))؛ اضغط Enter إن لم يكن معروفًا"
            case .sex: "أنثى أو ذكر أو آخر أو غير معروف (\(latin("f/m/o/u")))"
            case .externalId: "نص؛ اضغط Enter إن لم يوجد"
            }
        case .sex(let sex):
            switch sex {
            case .female: "أنثى"
            case .male: "ذكر"
            case .other: "آخر"
            case .unknown: "غير معروف"
            }
        case .currentAnswer(let answer): "الإجابة الحالية: \(answer) (اضغط Enter للإبقاء عليها)"
        case .calculated(let value): "قيمة محسوبة: \(value)"
        case .notCalculated: "قيمة محسوبة: لا قيمة بعد (لم تتم الإجابة عن سؤال تستخدمه)"
        case .defaultAnswer(let answer): "القيمة الافتراضية: \(answer) (اضغط Enter لقبولها)"
        case .help(let help): "مساعدة: \(help)"
        case .required: "مطلوب"
        case .enterKeeps(let answer): "Enter يُبقي \(answer)"
        case .hint(let hint): describe(hint)
        case .yes: "نعم"
        case .no: "لا"
        case .compoundParts(let count, let labels): "أجزاؤه \(count): " + labels.joined(separator: "، ")

        case .controlCharacter:
            "في هذا السطر محرف تحكّم (مفتاح سهم أو تسلسل هروب حيث لا يتوفر تحرير السطر، أو نص ملصوق)، ولا يُحفظ مثله في أي سجل؛ اكتب الإجابة من جديد."
        case .answerYesOrNo: "أجب بنعم أو لا (\(latin("y/n")))."
        case .chooseAtLeastOne: "اختر واحدًا على الأقل، وافصل بين الاختيارات بفاصلة."
        case .wholeNumber: "أدخل عددًا صحيحًا، مثل 42."
        case .number: "أدخل رقمًا، مثل 37.5."
        case .date: "أدخل التاريخ بصيغة \(latin("YYYY-MM-DD"))، مثل 2024-03-15، أو «اليوم»."
        case .geopoint: "أدخل الموقع بخط العرض وخط الطول بالدرجات، مثل \(latin("31.9539, 35.9106"))، أو الصق رابط خريطة."
        case .typeAChoice: "اكتب رقم الاختيار أو رمزه أو اسمه؛ \(latin(":list")) يعرضها كلها."
        case .notAChoice(let typed): "«\(typed)» ليس من الاختيارات. اكتب رقمه أو رمزه أو اسمه؛ \(latin(":list")) يعرضها كلها."
        case .characters(let count): "(\(count) حرفًا)"
        case .noSuchDay(let typed, .noSuchMonth): "\(latin(typed)) ليس يومًا: الأشهر من 01 إلى 12."
        case .noSuchDay(let typed, .noSuchDay(_, let month, let year, let days)):
            "\(latin(typed)) ليس يومًا: في الشهر \(month) من عام \(year) \(days) يومًا."
        case .numberNotShown(let typed):
            "\(latin(typed)) ليس من الأرقام المعروضة على الشاشة؛ اكتب جزءًا من اسم الاختيار، أو \(latin(":list")) لترقيمها كلها."
        case .severalMatchTypeMore(let typed): "أكثر من اختيار يطابق «\(typed)»؛ اكتب مزيدًا من الاسم، أو رقمه أو رمزه:"
        case .severalMatchPickNumber(let typed): "أكثر من اختيار يطابق «\(typed)»؛ اكتب رقم الاختيار المقصود، أو اكتب الإجابة من جديد:"
        case .didYouMean(let typed): "«\(typed)» ليس اختيارًا؛ هل تقصد هذا؟ اكتب 1 لاختياره، أو اكتب الإجابة من جديد:"
        // The arrow points the way the line reads.
        case .chosen(let labels): "  ← \(labels)"
        case .outOfRange(let below, let limit): below ? "الإجابة أقل من الحد الأدنى \(limit)." : "الإجابة أكبر من الحد الأقصى \(limit)."
        case .answerProblem(let problem): "الإجابة غير مقبولة (\(latin(problem)))."
        case .questionRequired: "هذا السؤال مطلوب. أجب عنه، أو اكتب \(latin(":skip")) للعودة إليه لاحقًا."
        case .fieldRequired(let label): "«\(label)» مطلوب. اكتب \(latin(":skip")) لترك السؤال كله الآن."
        case .keepUnder(let limit): "يجب ألا يتجاوز النص \(limit) حرف."
        case .dateOfBirthFormat: "أدخل تاريخ الميلاد بصيغة \(latin("YYYY-MM-DD"))، مثل 1988-04-02، أو اضغط Enter إن لم يكن معروفًا."
        case .dateOfBirthRange: "يجب أن يكون تاريخ الميلاد بين 1900-01-01 واليوم."
        case .sexAnswer: "أجب: أنثى أو ذكر أو آخر أو غير معروف (\(latin("f/m/o/u")))."

        case .commandsHelp:
            [
                "الأوامر (اكتبها عند أي سؤال):",
                "  \(latin(":back"))      السؤال السابق",
                "  \(latin(":skip"))      اترك هذا السؤال الآن",
                "  \(latin(":next"))      القسم التالي",
                "  \(latin(":go 3"))      اذهب إلى القسم 3 (\(latin(":go 3.5"))، \(latin(":go patient")))",
                "  \(latin(":review"))    اعرض كل الإجابات حتى الآن",
                "  \(latin(":clear"))     احذف إجابة هذا السؤال",
                "  \(latin(":list"))      اعرض كل اختيارات هذا السؤال",
                "  \(latin(":finish"))    تحقّق من السجل وأكمله",
                "  \(latin(":quit"))      احفظ المسودة وتوقّف",
                "  \(latin(":help"))      اعرض هذه القائمة",
                "اضغط Enter للإبقاء على الإجابة الحالية أو لترك سؤال اختياري فارغًا.",
            ].joined(separator: "\n")
        case .unknownCommand(let name, let suggestion):
            "أمر غير معروف: \(latin(":" + name))." + (suggestion.map { " هل تقصد \(latin(":" + $0))؟" } ?? "")
                + " اكتب \(latin(":help")) لعرض القائمة."
        case .goWhere: "إلى أين؟ اكتب \(latin(":go 2")) للقسم 2، أو \(latin(":go 2.5")) لسؤاله الخامس، أو \(latin(":go patient"))."
        case .firstQuestion: "هذا هو السؤال الأول."
        case .noSuchSection(let number, let count): "لا يوجد قسم \(number)؛ الأقسام من 1 إلى \(count)."
        case .sectionHidden(let number): "كل أسئلة القسم \(number) مخفية بسبب إجابات سابقة."
        case .noSuchQuestion(let position): "لا يوجد سؤال \(position)."
        case .questionHidden(let position): "السؤال \(position) مخفي بسبب إجابات سابقة (شرط ظهوره)."
        case .goFirstThenClear: "اذهب إلى سؤال أولًا (\(latin(":go 2.5")))، ثم اكتب \(latin(":clear"))."
        case .cleared: "حُذفت الإجابة."
        case .noChoices: "ليس لهذا السؤال اختيارات لعرضها."
        case .answerNotChanged: "لم تتغير إجابة هذا السؤال."

        case .reviewHeading: "── مراجعة ──"
        case .reviewPatient: "المريض"
        case .reviewSection(let number, let title): "القسم \(number): \(title)"
        case .notAnswered: "مطلوب، لم يُجب عنه"
        case .endOfQuestionnaire(let answers): "نهاية الاستبيان: عدد الأسئلة المُجاب عنها \(answers)."
        case .stillRequired(let positions): "ما زال مطلوبًا: " + positions.joined(separator: "، ")
        case .finishPrompt:
            "اكتب \(latin(":finish")) لإكمال السجل، أو \(latin(":review")) لمراجعة الإجابات، أو \(latin(":go 2")) لتغيير القسم 2."
        case .cannotComplete: "لا يمكن إكمال السجل بعد:"
        case .issue(let issue): describe(issue)
        case .fileHint(let kind):
            "مسار ملف \(Self.fileKind(kind)) بصيغة \(latin(kind.types.map(\.name).joined(separator: ", "))) لا يتجاوز \(latin(AttachmentKind.describe(kind.maxBytes))) (اسحبه إلى هنا)"
        case .fileAnswer(let kind, let type, let size, let digest):
            "\(Self.fileKind(kind)) (\(latin(type))، \(latin(size))، \(latin(digest)))"
        case .fileNotFound: "لا يوجد ملف في هذا المسار. اكتب مسار الملف (أو اسحبه إلى هذه النافذة)."
        case .fileUnreadable: "تتعذر قراءة هذا الملف (مجلد، أو لا إذن بقراءته)."
        case .fileTooLarge(let kind, let size):
            "حجم هذا الملف \(latin(size))، والحد الأقصى لملف \(Self.fileKind(kind)) هو \(latin(AttachmentKind.describe(kind.maxBytes))). صغّره ثم أرفقه من جديد."
        case .fileWrongType(let kind):
            "هذا الملف ليس بصيغة \(latin(kind.types.map(\.name).joined(separator: ", "))) (بحسب محتواه لا اسمه)؛ أرفق ملفاً بإحدى هذه الصيغ."
        case .fileNotKept(let reason): "تعذّر حفظ الملف على هذا الجهاز: \(reason)."
        case .repeatStatus(let count, let wanted):
            wanted.map { "سُجّل \(count) من \($0)" } ?? "عدد المسجَّل: \(count)"
        case .instanceLine(let number, let summary): "  #\(number)  \(summary.isEmpty ? "(لا إجابات بعد)" : summary)"
        case .repeatCommands(let canAdd, let counted):
            (counted ? "Enter يملأ التالي (أو يتابع حين يكتمل العدد)" : canAdd ? "+ يضيف واحداً، وEnter يتابع" : "Enter يتابع")
                + "؛ رقمٌ يفتح صاحبه؛ \(latin("-N")) يحذفه؛ \(latin("N>M")) ينقله إلى الموضع M."
        case .instanceHeading(let label, let number, let total): "— \(label): \(number)\(total.map { " من \($0)" } ?? "") —"
        case .instanceRemoved(let number): "حُذف رقم \(number)، وتقدّم ما بعده. اكتب «تراجع» لإعادته."
        case .instanceRestored(let number): "عاد رقم \(number) إلى مكانه بإجاباته."
        case .nothingToUndo: "لا حذف هنا للتراجع عنه."
        case .undoWord: "تراجع"
        case .instanceMoved(let from, let to): "نُقل رقم \(from) إلى الموضع \(to)."
        case .noSuchInstance(let number, let count):
            count == 0 ? "لا يوجد رقم \(number) بعد؛ اكتب + لإضافة واحد." : "لا يوجد رقم \(number)؛ الأرقام من 1 إلى \(count)."
        case .repeatFull(let limit): "يتسع هذا التكرار لـ\(limit) على الأكثر؛ احذف واحداً (\(latin("-N"))) لتضيف غيره."
        case .instanceCount(let count): "عدد المسجَّل: \(count)"
        case .repeatAnswer: "اكتب + أو رقماً أو \(latin("-N")) أو \(latin("N>M")) (أو Enter للمتابعة)."
        case .droppedHidden(let count):
            count == 1
                ? "حُذفت إجابة واحدة عن سؤال أخفته تغييرات لاحقة."
                : "حُذفت إجابات عن أسئلة أخفتها تغييرات لاحقة، عددها \(count)."
        case .complete(let id, let answers): "اكتمل السجل \(latin(id)) (عدد الإجابات \(answers))."

        case .couldNotSave(let error):
            "تعذّر حفظ المسودة (\(latin(error))). الإجابات باقية هنا في الذاكرة، وتُحفظ حالما تتوفر مساحة: أفرغ بعض المساحة على القرص وتابع. لا تغلق هذه النافذة."
        case .savedAgain: "حُفظت من جديد: كل الإجابات حتى الآن على القرص."
        case .quitNeedsRoom:
            "لا يمكن حفظ المسودة بعد، فيبقى النموذج مفتوحًا: أفرغ بعض المساحة على القرص، ثم اكتب \(latin(":quit")) مرة أخرى."
        case .finishNeedsRoom: "لا يمكن حفظ السجل بعد، فهو لم يكتمل: أفرغ بعض المساحة على القرص، ثم اكتب \(latin(":finish")) مرة أخرى."
        case .nothingTyped: "لم يُكتب شيء؛ لم تُحفظ أي مسودة."
        case .draftSaved(let resume): "حُفظت المسودة. تابعها بالأمر: \(latin("intake fill --resume \(resume)"))"

        case .sending(let host, let seconds):
            "جارٍ الإرسال إلى \(latin(host))… (\(seconds) ثانية على الأكثر؛ \(latin("Ctrl-C")) يبقيه على هذا الجهاز، في قائمة الانتظار)"
        case .sent: "أُرسل السجل إلى الخادم."
        case .alreadySent: "السجل موجود على الخادم من قبل؛ لم يُرسل شيء مرتين."
        case .savedAsRevision(let revision): "حُفظ على الخادم بصفته المراجعة \(revision)."
        case .savedOffline(let waiting, let reason):
            "حُفظ دون اتصال (\(latin(reason))): السجلات المنتظرة \(waiting)، مشفّرة على هذا الجهاز. ارفعها بالأمر \(latin("intake flush"))."
        case .alertWaits(let message):
            "تنبيه: \(message.hasSuffix(".") ? message : message + ".") لا يعلم المنسّقون به إلا حين يصل هذا السجل إلى الخادم: أرسله في أقرب وقت (\(latin("intake flush")))، أو أبلغهم الآن."
        case .savedUntilSignIn(let waiting):
            "حُفظ مشفّرًا على هذا الجهاز (السجلات المنتظرة \(waiting)). ليس للسجل جامع بعد (لم يسجّل أحد الدخول هنا، أو لم يذكر الخادم من سجّل): سيُرسل باسم الحساب المسجّل الدخول على هذا الجهاز (\(latin("intake login")) أو \(latin("intake enrol"))، ثم \(latin("intake flush")))."
        case .refused(let message): "رفض الخادم السجل: \(latin(message))"
        case .refusedFor(let code, let message): "رفض الخادم السجل: " + (Self.refusal(code) ?? latin(message))
        case .serverIssue(_, let issue): describe(issue)
        case .refusedDraftAgain: "عاد السجل مسودة؛ صحّحه بالأمر: \(latin("intake fill --resume"))"
        case .heldBack(let reason):
            "على الخادم سجل آخر بهذا المعرّف (\(latin(reason))). السجل باقٍ في قائمة الانتظار، منحّى جانبًا: انظر \(latin("intake queue list"))."
        case .staleEdit(let current):
            "حفظ شخص آخر هذا السجل على الخادم (المراجعة الآن \(current)) بعد أن فتحته، فلم تُحفظ تغييراتك فوق تغييراته. تغييراتك محفوظة مسودةً؛ ابحث عن السجل من جديد (\(latin("intake lookup"))) وطبّقها على النسخة الحالية."
        case .inputEndedBlank: "انتهى الإدخال قبل كتابة أي شيء؛ لم تُحفظ أي مسودة."
        case .inputEnded(let resume): "انتهى الإدخال قبل إكمال السجل. المسودة محفوظة: \(latin("intake fill --resume \(resume)"))"

        case .draftColumns: "#|المعرّف|الاستبيان|الإجابات|عند|المريض|آخر تعديل"
        case .draftAtPatient: "المريض"
        case .draftAtStart: "البداية"
        case .editOfRevision(let revision): "(تعديل المراجعة \(revision))"
        case .unfinishedDrafts: "مسودات لم تكتمل:"
        case .resumeWhich: "أي مسودة تتابع (رقمها)، أو اضغط Enter لسجل جديد؟ "
        case .pickNumber(let count): "اكتب رقمًا من 1 إلى \(count)، أو اضغط Enter."

        case .serverNotSearched(let problem): "لم يُبحث في الخادم (\(latin(problem)))؛ تظهر النتائج الموجودة على هذا الجهاز فقط."
        case .searchForPatient: "\nابحث عن مريض (اضغط Enter لتخطي حقل؛ Enter في كل الحقول للتوقف)."
        case .searchPrompt(let field):
            field == .dateOfBirth
                ? "تاريخ الميلاد (\(latin("YYYY-MM-DD"))): "
                : field == .externalId ? "الرقم المرجعي: " : ArabicText.text(.patientField(field)) + ": "
        case .dateOfBirthLeftOut: "(تاريخ الميلاد ليس بصيغة \(latin("YYYY-MM-DD")) فتُرك خارج البحث.)"
        case .noPatientMatches: "لا يوجد مريض مطابق."
        case .matchColumns: "#|المكان|المعرّف|الاسم|الميلاد|الجنس|الرقم المرجعي"
        case .matchSource(let source):
            switch source {
            case "server": "الخادم"
            case "draft": "مسودة"
            case "queued": "الانتظار"
            case "synced": "نسخة"
            default: latin(source)
            }
        case .offlineSearch(let copy):
            "دون اتصال: البحث في المسودات وقائمة الانتظار و\(copy.map(latin) ?? "لا نسخة متزامنة (شغّل \(latin("intake sync")) عند الاتصال)")."
        case .openWhich: "أي نتيجة تفتح (رقمها)، أو اضغط Enter للبحث من جديد؟ "

        case .flushSending(let count, let host, let timeout, let tries, let longest):
            "إرسال \(count) من السجلات إلى \(latin(host)): كل محاولة تنتظر \(timeout) ثانية على الأكثر، و\(tries) محاولات على الأكثر (\(longest) ثانية في المجموع)؛ \(latin("Ctrl-C")) يوقفه دون أن يضيع شيء."
        case .flushRetrying(let attempt, let of, let reason, let seconds):
            "فشلت المحاولة \(attempt) من \(of) (\(latin(reason)))؛ محاولة جديدة بعد \(seconds) ثانية."
        case .flushWaiting(let seconds): "محاولة جديدة بعد \(seconds) ثانية (\(latin("Ctrl-C")) يوقفها؛ لا يضيع شيء)."
        case .nothingWaits: "لا شيء ينتظر الإرسال."
        case .recordsWait(let count): "سجلات تنتظر الإرسال: \(count). أرسلها بالأمر \(latin("intake flush"))."
        case .recordsSetAside(let count): "سجلات نحّاها الخادم جانبًا: \(count). انظر \(latin("intake queue list"))."
        case .answersWait(let count): "ردود على إحالات كُتبت دون اتصال تنتظر أيضًا: \(count)."
        case .askingServer(let host, let seconds): "سؤال \(latin(host)) (\(seconds) ثانية على الأكثر؛ \(latin("Ctrl-C")) يوقفه)…"
        case .noDrafts: "لا مسودات غير مكتملة."
        case .draftsWait(let count):
            "مسودات غير مكتملة: \(count). تابعها بالأمر \(latin("intake fill --resume")) أو اعرضها بالأمر \(latin("intake drafts list"))."
        case .notSignedIn: "لم تسجّل الدخول إلى خادم: \(latin("intake login"))."
        case .lastSent(let at): "آخر إرسال إلى الخادم: \(latin(at + " UTC"))."
        case .lastTryFailed(let at, let reason): "آخر محاولة، \(latin(at + " UTC"))، فشلت: \(latin(reason))"
        case .sendingInBackground: "يجري الإرسال في الخلفية حتى تفرغ قائمة الانتظار (انظر \(latin("flush-watch.log")) في مجلد البيانات)."
        case .backgroundNotStarted:
            "لن يجري الإرسال في الخلفية: يحتاج ذلك مفتاح المخزن دون سؤال (مخزن كشك، أو \(latin("INTAKE_PASSPHRASE"))، أو جلسة مفتوحة)؛ شغّل \(latin("intake flush --watch"))."
        case .signedIn(let server, let nothingNew): "مسجّل الدخول إلى \(latin(server))" + (nothingNew ? "؛ لا جديد هناك." : ":")
        case .serverNotAsked(let error):
            "تعذّر سؤال الخادم (\(latin(error)))؛ تنتظر السجلات هنا حتى يصل إليه \(latin("intake flush"))."
        case .unreadNotifications(let total, let kinds):
            "إشعارات غير مقروءة: \(total) (\(kinds.map { "\(latin($0.kind)) \($0.count)" }.joined(separator: "، "))). اعرضها بالأمر \(latin("intake inbox"))."
        case .invitations(let count, let teams):
            "دعوات للانضمام: \(count) (\(teams.map { "«\($0)»" }.joined(separator: "، "))). اعرضها بالأمر \(latin("intake invitation list"))."

        case .passphrasePrompt: "عبارة مرور المخزن المحلي: "
        case .wrongPassphrase(let left): "عبارة مرور خاطئة (المحاولات الباقية: \(left)). "
        case .choosePassphrase:
            "اختر عبارة مرور للمسودات وقائمة الانتظار على هذا الجهاز. لا يمكن استعادتها: إن نُسيت فلن يستطيع أحد قراءة ما ينتظر هنا. (8 أحرف على الأقل.)\n"
        case .newPassphrase: "عبارة المرور الجديدة: "
        case .typeItAgain: "اكتبها مرة أخرى: "
        case .passphraseTooShort: "هذه أقصر من 8 أحرف؛ اختر عبارة أطول.\n"
        case .passphrasesDiffer: "العبارتان مختلفتان؛ اخترها من جديد.\n"
        case .cancelled: "أُلغي؛ لم يتغير شيء."
        case .cancelledSignedIn:
            "أُلغي. تسجيل دخولك محفوظ (الرمز محفوظ)؛ لم تُسحب الاستبيانات: شغّل \(latin("intake questionnaire pull"))."
        case .interrupted: "توقّف. كل إجابة كُتبت حتى الآن محفوظة؛ تابع بالأمر \(latin("intake fill --resume"))."
        case .interruptedSending: "توقّف الإرسال. السجل محفوظ مشفّرًا في قائمة الانتظار على هذا الجهاز؛ يرسله \(latin("intake flush")) لاحقًا."

        case .questionnairesToPull(let versions):
            "إصدارات استبيان منشورة لم تُسحب إلى هذا الجهاز: \(versions.count) (\(versions.map(latin).joined(separator: "، "))). اسحبها بالأمر \(latin("intake questionnaire pull"))."
        case .casesPulled(let total, let received, let dropped):
            "الحالات المفتوحة على هذا الجهاز: \(total)، محفوظة مشفّرة (جديدة أو معدّلة: \(received)، مغلقة أو أُسندت إلى غيرك: \(dropped))."
        case .casesNoneYet: "لا حالات على هذا الجهاز بعد: شغّل \(latin("intake cases pull")) عندما يمكن الوصول إلى الخادم."
        case .casesNone: "لا حالات مفتوحة على هذا الجهاز."
        case .caseColumns: "المعرّف|القائمة|من|الموعد|المتابِع|الزيارات"
        case .caseTheTeam: "(الفريق)"
        case .casesOverdue(let count): "متأخرة: \(count) (عليها !)."
        case .casesConflictNote: "⚠: زيارات سُجّلت دون اتصال من المراجعة نفسها ولا تتفق؛ يراجعها المنسّق."
        case .casesDetails: "التفاصيل: \(latin("intake cases show ID"))"
        case .caseHeading(let id): "الحالة \(latin(id))"
        case .caseStatus(let open): open ? "مفتوحة" : "مغلقة"
        case .caseFields: "القائمة|المريض|المتابِع|الموعد|الزيارات|التعارضات"
        case .caseBorn(let date): "، مواليد \(latin(date))"
        case .caseOverdue: "(متأخرة)"
        case .caseVisits(let visits, let revision): "\(visits) (المراجعة \(revision))"
        case .caseConflicts(let properties): "\(latin(properties)) (زيارات سُجّلت دون اتصال من مراجعة واحدة ولا تتفق)"
        case .caseFill(let id): "سجّل زيارة متابعتها: \(latin("intake fill --case " + id))"
        case .queueListEmpty: "قائمة الانتظار فارغة."
        case .queueColumns: "المعرّف|الحالة|المحاولات|في الانتظار منذ|النوع|السبب"
        case .queueWaiting: "ينتظر"
        case .queueSetAsideState: "منحّى جانبًا"
        case .queueNew: "جديد"
        case .queueEdit: "تعديل"
        case .queueCounts(let waiting, let setAside):
            "ينتظر \(waiting)، ومنحّى جانبًا \(setAside). ارفعها بالأمر \(latin("intake flush"))؛ وأعد المنحّاة إلى الانتظار بالأمر \(latin("intake queue retry"))."
        case .queueEmpty: "قائمة الانتظار فارغة؛ لا شيء لرفعه."
        case .queueSetAside(let count): "سجلات منحّاة جانبًا: \(count). انظر \(latin("intake queue list"))."
        case .flushed(let uploaded, let already, let setAside, let queued):
            "رُفع: \(uploaded). موجود على الخادم من قبل: \(already). نُحّي جانبًا: \(setAside). ما زال في الانتظار: \(queued)."
        case .mergedMeanwhile(let id, let how): "  \(latin(id)) تغيّر على الخادم في الأثناء: \(latin(how))."
        case .setAsideBecause(let id, let reason): "  \(latin(id)) نُحّي جانبًا: \(latin(reason))"
        case .setAsideFor(let id, let code, let reason):
            "  \(latin(id)) نُحّي جانبًا: " + (code.flatMap { $0 == "invalid_record" ? nil : Self.refusal($0) } ?? latin(reason))
        case .moveToVersion(let id, let questionnaire, let from, let to):
            "  \(latin(id)) على الإصدار \(latin(from)) من \(latin(questionnaire))؛ على هذا الجهاز الإصدار \(latin(to)): \(latin("intake drafts migrate \(id)"))"
        case .filledBeforeSignIn(let count, let account):
            "سجلات مُلئت هنا قبل تسجيل دخولك: \(count). ستُرسل باسم \(latin(account))."
        case .filledBeforeSignInNoAccount(let count):
            "سجلات بلا جامع بعد: \(count)، تبقى في الانتظار: تُرسل باسم الحساب المسجّل هنا حين يذكره الخادم (سجّل الدخول من جديد بالأمر \(latin("intake login")))، أو سمِّ جامعها: \(latin("intake queue retry ID --collector NAME"))."
        case .stoppedEarly(let reason):
            "توقّف الرفع مبكرًا: \(latin(reason)). السجلات التي لم تُرسل باقية في الانتظار؛ أعد تشغيل \(latin("intake flush")) لاحقًا."
        }
    }

    private static func describe(_ place: FormText.Place) -> String {
        switch place {
        case .patient(let field): "قسم بيانات المريض (\(text(.patientField(field))))"
        case .question(let position): "السؤال \(position)"
        case .end: "نهاية الاستبيان"
        }
    }

    private static func describe(_ hint: FormText.Hint) -> String {
        switch hint {
        case .text: "نص"
        case .yesNo: "نعم/لا"
        case .wholeNumber(let from, let to): "عدد صحيح" + range(from, to)
        case .number(let from, let to): "رقم" + range(from, to)
        case .date(let from, let to):
            "تاريخ \(latin("YYYY-MM-DD"))" + range(from.map(today), to.map(today))
        case .chooseOneOfLong(let count): "اختر واحدًا من \(count): اكتب جزءًا من الاسم أو الرمز (\(latin(":list")) يعرضها كلها)"
        case .chooseOne: "اختر واحدًا: اكتب رقمه أو رمزه أو اسمه"
        case .chooseSomeOfLong(let count): "اختر واحدًا أو أكثر من \(count)، وافصل بينها بفاصلة (\(latin(":list")) يعرضها كلها)"
        case .chooseSome: "اختر واحدًا أو أكثر، وافصل بينها بفاصلة"
        case .geopoint: "موقع: خط العرض، خط الطول [الارتفاع الدقة]، أو رابط خريطة"
        }
    }

    /// A date bound: `today` said in Arabic.
    private static func today(_ bound: String) -> String { bound == "today" ? "اليوم" : bound }

    private static func range(_ lower: String?, _ upper: String?) -> String {
        switch (lower, upper) {
        case let (lower?, upper?): " من \(lower) إلى \(upper)"
        case let (lower?, nil): " من \(lower)"
        case let (nil, upper?): " حتى \(upper)"
        case (nil, nil): ""
        }
    }

    /// A reason the record cannot be completed, said in Arabic where its kind is known.
    /// The server's refusal of a record by its code, in Arabic; nil for a code not known here
    /// (its own words are said then).
    private static func refusal(_ code: String) -> String? {
        switch code {
        case "invalid_record": "لا يجتاز السجل التحقق؛ المشكلات أدناه."
        case "unknown_collector":
            "جامع السجل ليس عضوًا في هذا الفريق. أرسله باسم عضو: \(latin("intake fill --resume ID --collector NAME"))، أو \(latin("intake queue retry ID --collector NAME")) لسجل منحّى جانبًا."
        case "collector_changed": "يحتفظ التعديل بجامع السجل الأصلي؛ أرسله بالجامع نفسه."
        case "unknown_patient": "المريض الذي يشير إليه السجل ليس في سجل مرضى الفريق؛ سجّله أولًا (\(latin("intake patient register")))."
        case "unknown_questionnaire":
            "إصدار الاستبيان هذا غير منشور على الخادم؛ اسحب الإصدار الحالي (\(latin("intake questionnaire pull"))) وانقل المسودة إليه."
        case "questionnaire_closed", "questionnaire_retired", "questionnaire_draft":
            "إصدار الاستبيان هذا لا يقبل سجلات جديدة؛ انقل المسودة إلى الإصدار الحالي (\(latin("intake drafts migrate")))."
        case "attachment_missing": "لم يصل إلى الخادم ملف يشير إليه السجل؛ أعد إرفاقه ثم أرسل السجل من جديد."
        default: nil
        }
    }

    private static func describe(_ issue: ValidationIssue) -> String {
        if let position = issue.position {
            switch issue.kind {
            case .missingRequired:
                return issue.field.map { "السؤال \(position): الجزء «\($0)» مطلوب" } ?? "السؤال \(position): مطلوب ولم يُجب عنه"
            case .outOfRange: return "السؤال \(position): الإجابة خارج الحدود المسموح بها"
            default: return latin(issue.description)
            }
        }
        switch (issue.kind, issue.field.flatMap(PatientIdentification.Field.init(rawValue:))) {
        case (.missingIdentification, let field?): return "بيانات المريض: «\(text(.patientField(field)))» ناقص"
        case (.outOfRange, .dateOfBirth?): return text(.dateOfBirthRange)
        default: return latin(issue.description)
        }
    }
}
