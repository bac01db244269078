import IntakeCore

/// The form's messages in French.
///
/// Commands, formats and file types stay as they are typed (`:finish`, `intake flush`,
/// `YYYY-MM-DD`, `f/m/o/u`, `y/n`); a record is a « fiche ». French puts the singular for 0 and 1.
enum FrenchText {
    static func text(_ text: FormText) -> String {
        switch text {
        case .formTitle(let title, let id, let version): "\(title) (\(id), version \(version))"
        case .recordId(let id): "Fiche \(id)"
        case .resuming(let place, let answers):
            "Reprise du brouillon à \(describe(place)) ; \(plural(answers, "réponse", "réponses")) jusqu'ici."
        case .typeHelp: "Tapez :help pour voir les commandes. Chaque réponse est enregistrée au fur et à mesure."
        case .editingRevision(let revision): "Modification de la fiche du serveur, révision \(revision)."
        case .followUpOfCase(let id, let list, let name): "Suivi du cas \(id) (\(list)) pour \(name) : la section patient est déjà remplie."
        case .registryPatient(let name, let id): "Patient \(name) (registre, \(id)) : la section patient est déjà remplie."

        case .patientHeading: "── Informations sur le patient ──"
        case .sectionHeading(let number, let count, let title): "── Section \(number) sur \(count) : \(title) ──"
        case .patientField(let field):
            switch field {
            case .givenName: "Prénom"
            case .familyName: "Nom de famille"
            case .dateOfBirth: "Date de naissance"
            case .sex: "Sexe"
            case .externalId: "Identifiant externe (numéro de cas ou de dossier)"
            }
        case .patientHint(let field):
            switch field {
            case .givenName, .familyName: "texte"
            case .dateOfBirth: "date YYYY-MM-DD ; appuyez sur Entrée si elle n'est pas connue"
            case .sex: "féminin, masculin, autre ou inconnu (f/m/o/u)"
            case .externalId: "texte ; appuyez sur Entrée s'il n'y en a pas"
            }
        case .sex(let sex):
            switch sex {
            case .female: "féminin"
            case .male: "masculin"
            case .other: "autre"
            case .unknown: "inconnu"
            }
        case .currentAnswer(let answer): "réponse actuelle : \(answer) (Entrée la conserve)"
        case .calculated(let value): "calculé : \(value)"
        case .notCalculated: "calculé : pas encore de valeur (une question utilisée n'a pas de réponse)"
        case .defaultAnswer(let answer): "par défaut : \(answer) (Entrée l'accepte)"
        case .help(let help): "aide : \(help)"
        case .required: "obligatoire"
        case .enterKeeps(let answer): "Entrée conserve \(answer)"
        case .hint(let hint): describe(hint)
        case .yes: "oui"
        case .no: "non"
        case .compoundParts(let count, let labels): "\(plural(count, "partie", "parties")) : " + labels.joined(separator: ", ")
        case .fileHint(let kind):
            "chemin d'\(fileKindWithArticle(kind)) au format \(either(kind.types.map(\.name))), \(bytes(AttachmentKind.describe(kind.maxBytes))) au maximum (faites glisser le fichier ici)"
        case .fileAnswer(let kind, let type, let size, let digest): "\(fileKind(kind)) (\(type), \(bytes(size)), \(digest))"
        case .fileNotFound: "Aucun fichier à cet emplacement. Tapez le chemin du fichier (ou faites-le glisser dans cette fenêtre)."
        case .fileUnreadable: "Impossible de lire ce fichier (c'est un dossier, ou vous n'avez pas le droit de le lire)."
        case .fileTooLarge(let kind, let size):
            "Ce fichier fait \(bytes(size)) ; \(fileKindWithArticle(kind)) ne doit pas dépasser \(bytes(AttachmentKind.describe(kind.maxBytes))). Réduisez sa taille et joignez-le à nouveau."
        case .fileWrongType(let kind):
            "Ce fichier n'est pas au format \(either(kind.types.map(\.name))) (d'après son contenu, quel que soit son nom) ; joignez un fichier dans l'un de ces formats."
        case .fileNotKept(let reason): "Le fichier n'a pas pu être conservé sur cet appareil : \(reason)."
        case .repeatStatus(let count, let wanted):
            wanted.map { "\(plural(count, "saisi", "saisis")) sur \($0)" } ?? plural(count, "saisi", "saisis")
        case .instanceLine(let number, let summary): "  #\(number)  \(summary.isEmpty ? "(pas encore de réponse)" : summary)"
        case .repeatCommands(let canAdd, let counted):
            (counted
                ? "Entrée remplit le suivant (ou continue quand tous sont saisis)"
                : canAdd ? "+ en ajoute un, Entrée continue" : "Entrée continue")
                + " ; un numéro ouvre l'élément correspondant ; -N le supprime ; N>M le déplace à la place M."
        case .instanceHeading(let label, let number, let total): "— \(label) : \(number)\(total.map { " sur \($0)" } ?? "") —"
        case .instanceRemoved(let number):
            "#\(number) supprimé ; les suivants ont remonté d'un rang. Tapez \(FrenchText.text(.undoWord)) pour le rétablir."
        case .instanceRestored(let number): "#\(number) est revenu à sa place, avec ses réponses."
        case .nothingToUndo: "Aucune suppression à annuler ici."
        case .undoWord: "annuler"
        case .instanceMoved(let from, let to): "#\(from) déplacé à la place \(to)."
        case .noSuchInstance(let number, let count):
            count == 0
                ? "Il n'y a pas encore de #\(number) ; tapez + pour en ajouter un."
                : "Il n'y a pas de #\(number) ; les numéros vont de 1 à \(count)."
        case .repeatFull(let limit):
            "Ce groupe répété accepte au plus \(plural(limit, "élément", "éléments")) ; supprimez-en un (-N) pour en ajouter un autre."
        case .instanceCount(let count): plural(count, "saisi", "saisis")
        case .repeatAnswer: "Tapez +, un numéro, -N ou N>M (ou Entrée pour continuer)."

        case .controlCharacter:
            "Cette ligne contient un caractère de contrôle (une touche fléchée ou une séquence d'échappement là où l'édition de ligne n'était pas disponible, ou un caractère collé), qu'une fiche ne conserve jamais ; tapez de nouveau la réponse."
        case .answerYesOrNo: "Veuillez répondre oui ou non (o/n)."
        case .chooseAtLeastOne: "Choisissez au moins une option (séparez les options par des virgules)."
        case .wholeNumber: "Veuillez saisir un nombre entier, par exemple 42."
        case .number: "Veuillez saisir un nombre, par exemple 37,5."
        case .date: "Veuillez saisir une date au format YYYY-MM-DD, par exemple 2024-03-15, ou tapez aujourd'hui pour la date du jour."
        case .geopoint:
            "Veuillez saisir un lieu par sa latitude et sa longitude en degrés, par exemple 31.9539, 35.9106 (l'altitude et la précision peuvent suivre), ou collez un lien de carte ou 31°57'14\"N 35°54'38\"E."
        case .typeAChoice: "Tapez le numéro, le code ou le nom d'un choix ; :list les affiche tous."
        case .notAChoice(let typed):
            "« \(typed) » ne fait pas partie des choix. Tapez son numéro, son code ou son nom ; :list les affiche tous."
        case .characters(let count): "(\(plural(count, "caractère", "caractères")))"
        case .noSuchDay(let typed, .noSuchMonth): "\(typed) n'est pas un jour valide : les mois vont de 01 à 12."
        case .noSuchDay(let typed, .noSuchDay(_, let month, let year, let days)):
            "\(typed) n'est pas un jour valide : le mois \(month < 10 ? "0" : "")\(month) de \(year) compte \(days) jours."
        case .numberNotShown(let typed):
            "\(typed) ne fait pas partie des numéros affichés à l'écran ; tapez une partie du nom du choix, ou :list pour tous les numéroter."
        case .severalMatchTypeMore(let typed):
            "Plusieurs choix correspondent à « \(typed) » ; tapez davantage de lettres du nom, ou son numéro ou son code :"
        case .severalMatchPickNumber(let typed):
            "Plusieurs choix correspondent à « \(typed) » ; tapez le numéro de celui que vous voulez, ou tapez de nouveau la réponse :"
        case .didYouMean(let typed):
            "« \(typed) » n'est pas un choix ; vouliez-vous dire celui-ci ? Tapez 1 pour le choisir, ou tapez de nouveau la réponse :"
        case .chosen(let labels): "  → \(labels)"
        case .outOfRange(let below, let limit):
            below ? "La réponse est inférieure au minimum (\(limit))." : "La réponse est supérieure au maximum (\(limit))."
        case .answerProblem(let problem): "Réponse non acceptée (\(problem))."
        case .questionRequired: "Cette question est obligatoire. Répondez-y, ou tapez :skip pour y revenir plus tard."
        case .fieldRequired(let label): "« \(label) » est obligatoire. Tapez :skip pour laisser toute la question pour l'instant."
        case .keepUnder(let limit): "Veuillez ne pas dépasser \(plural(limit, "caractère", "caractères"))."
        case .dateOfBirthFormat:
            "Veuillez saisir la date de naissance au format YYYY-MM-DD, par exemple 1988-04-02, ou appuyez sur Entrée si elle n'est pas connue."
        case .dateOfBirthRange: "La date de naissance doit être comprise entre 1900-01-01 et aujourd'hui."
        case .sexAnswer: "Veuillez répondre féminin, masculin, autre ou inconnu (f/m/o/u)."

        case .commandsHelp:
            """
            Commandes (à taper à n'importe quelle question) :
              :back      revenir à la question précédente
              :skip      laisser cette question pour l'instant
              :next      passer à la section suivante
              :go 3      aller à la section 3 (:go 3.5, :go patient)
              :review    afficher toutes les réponses saisies
              :clear     effacer la réponse à cette question
              :list      afficher tous les choix de cette question
              :finish    vérifier et terminer la fiche
              :quit      enregistrer le brouillon et arrêter
              :help      afficher cette liste
            Appuyez sur Entrée pour conserver la réponse actuelle ou pour laisser vide une question facultative.
            """
        case .unknownCommand(let name, let suggestion):
            "Commande inconnue ':\(name)'." + (suggestion.map { " Vouliez-vous dire :\($0) ?" } ?? "") + " Tapez :help pour voir la liste."
        case .goWhere: "Aller où ? Tapez :go 2 pour la section 2, :go 2.5 pour sa cinquième question, ou :go patient."
        case .firstQuestion: "C'est la première question."
        case .noSuchSection(let number, let count): "Il n'y a pas de section \(number) ; les sections vont de 1 à \(count)."
        case .sectionHidden(let number): "Toutes les questions de la section \(number) sont masquées par des réponses précédentes."
        case .noSuchQuestion(let position): "Il n'y a pas de question \(position)."
        case .questionHidden(let position): "La question \(position) est masquée par des réponses précédentes (sa condition d'affichage)."
        case .goFirstThenClear: "Allez d'abord à une question (:go 2.5), puis tapez :clear."
        case .cleared: "Réponse effacée."
        case .noChoices: "Cette question n'a pas de choix à afficher."
        case .answerNotChanged: "La réponse à cette question n'a pas été modifiée."

        case .reviewHeading: "── Récapitulatif ──"
        case .reviewPatient: "Patient"
        case .reviewSection(let number, let title): "Section \(number) : \(title)"
        case .notAnswered: "obligatoire, sans réponse"
        case .endOfQuestionnaire(let answers): "Fin du questionnaire : \(plural(answers, "réponse saisie", "réponses saisies"))."
        case .stillRequired(let positions): "Questions obligatoires sans réponse : " + positions.joined(separator: ", ")
        case .finishPrompt: "Tapez :finish pour terminer la fiche, :review pour vérifier les réponses, ou :go 2 pour modifier la section 2."
        case .cannotComplete: "La fiche ne peut pas encore être terminée :"
        case .issue(let issue): describe(issue) ?? issue.description
        case .droppedHidden(let count):
            count < 2
                ? "\(count) réponse à une question masquée par des modifications ultérieures a été supprimée."
                : "\(count) réponses à des questions masquées par des modifications ultérieures ont été supprimées."
        case .complete(let id, let answers): "La fiche \(id) est terminée (\(plural(answers, "réponse", "réponses")))."

        case .couldNotSave(let error):
            "Impossible d'enregistrer le brouillon (\(error)). Les réponses sont conservées ici, en mémoire, et seront enregistrées dès qu'il y aura de la place : libérez de l'espace disque et continuez. Ne fermez pas cette fenêtre."
        case .savedAgain: "Enregistré à nouveau : toutes les réponses saisies jusqu'ici sont sur le disque."
        case .quitNeedsRoom:
            "Le brouillon ne peut pas encore être enregistré, le formulaire reste donc ouvert : libérez de l'espace disque, puis tapez de nouveau :quit."
        case .finishNeedsRoom:
            "La fiche ne peut pas encore être enregistrée, elle n'est donc pas terminée : libérez de l'espace disque, puis tapez de nouveau :finish."
        case .nothingTyped: "Rien n'a été saisi ; aucun brouillon n'a été conservé."
        case .draftSaved(let resume): "Brouillon enregistré. Reprenez-le avec : intake fill --resume \(resume)"

        case .sending(let host, let seconds):
            "Envoi à \(host)… (\(seconds) s au maximum ; Ctrl-C la garde hors ligne, dans la file d'attente)"
        case .sent: "Fiche envoyée au serveur."
        case .alreadySent: "Le serveur avait déjà cette fiche ; rien n'a été envoyé deux fois."
        case .savedAsRevision(let revision): "Fiche enregistrée sur le serveur (révision \(revision))."
        case .savedOffline(let waiting, let reason):
            "Fiche enregistrée hors ligne (\(reason)), chiffrée sur cet appareil : \(plural(waiting, "fiche en attente", "fiches en attente")). Pour envoyer : 'intake flush'."
        case .alertWaits(let message):
            "ALERTE : \(message.hasSuffix(".") ? message : message + ".") Les coordinateurs ne sont prévenus que lorsque cette fiche arrive sur le serveur : envoyez-la dès que possible ('intake flush'), ou prévenez-les maintenant."
        case .savedUntilSignIn(let waiting):
            "Fiche enregistrée, chiffrée sur cet appareil (\(plural(waiting, "fiche en attente", "fiches en attente"))). Elle n'a pas encore d'agent de collecte (personne ne s'est connecté ici, ou le serveur n'a pas indiqué qui) : elle sera envoyée au nom du compte connecté sur cet appareil ('intake login' ou 'intake enrol', puis 'intake flush')."
        case .refused(let message): "Le serveur a refusé la fiche : \(message)"
        case .refusedFor(let code, let message): "Le serveur a refusé la fiche : " + (refusal(code) ?? message)
        case .serverIssue(let said, let issue): describe(issue) ?? said
        case .refusedDraftAgain: "La fiche est redevenue un brouillon ; corrigez-la avec : intake fill --resume"
        case .heldBack(let reason):
            "Le serveur a une autre fiche avec cet identifiant (\(reason)). Elle est gardée dans la file d'attente, mise de côté : voir 'intake queue list'."
        case .staleEdit(let current):
            "Quelqu'un a enregistré cette fiche sur le serveur (révision \(current) maintenant) après que vous l'avez ouverte ; vos modifications n'ont donc pas remplacé les siennes. Elles sont gardées comme brouillon ; recherchez de nouveau la fiche ('intake lookup') et appliquez-les à la version actuelle."
        case .inputEndedBlank: "L'entrée s'est arrêtée avant toute saisie ; aucun brouillon n'a été conservé."
        case .inputEnded(let resume):
            "L'entrée s'est arrêtée avant la fin de la fiche. Le brouillon est enregistré : intake fill --resume \(resume)"

        case .draftColumns: "#|ID|QUESTIONNAIRE|RÉPONSES|POSITION|PATIENT|MODIFIÉ"
        case .draftAtPatient: "patient"
        case .draftAtStart: "début"
        case .editOfRevision(let revision): "(modification de la révision \(revision))"
        case .unfinishedDrafts: "Brouillons non terminés :"
        case .resumeWhich: "Lequel reprendre (numéro), ou Entrée pour une nouvelle fiche ? "
        case .pickNumber(let count): "Veuillez taper un numéro de 1 à \(count), ou appuyer sur Entrée."

        case .serverNotSearched(let problem):
            "Recherche non effectuée sur le serveur (\(problem)) ; seuls les résultats de cet appareil sont affichés."
        case .searchForPatient: "\nRecherche d'un patient (Entrée pour passer un champ ; Entrée à tous les champs pour arrêter)."
        case .searchPrompt(let field):
            field == .dateOfBirth
                ? "Date de naissance (YYYY-MM-DD) : "
                : field == .externalId ? "Identifiant externe : " : FrenchText.text(.patientField(field)) + " : "
        case .dateOfBirthLeftOut: "(La date de naissance n'était pas au format YYYY-MM-DD ; elle n'est pas prise en compte.)"
        case .noPatientMatches: "Aucun patient ne correspond."
        case .matchColumns: "#|SOURCE|ID|NOM|NAISSANCE|SEXE|ID EXTERNE"
        case .matchSource(let source):
            switch source {
            case "server": "serveur"
            case "draft": "brouillon"
            case "queued": "attente"
            case "synced": "copie"
            default: source
            }
        case .offlineSearch(let copy):
            "Hors ligne : recherche dans les brouillons, la file d'attente et \(copy ?? "aucune copie synchronisée (lancez 'intake sync' une fois en ligne)")."
        case .openWhich: "Lequel ouvrir (numéro), ou Entrée pour chercher de nouveau ? "

        case .flushSending(let count, let host, let timeout, let tries, let longest):
            "Envoi de \(plural(count, "fiche", "fiches")) à \(host) : chaque tentative attend au plus \(timeout) s, \(plural(tries, "tentative", "tentatives")) au maximum (\(longest) s en tout) ; Ctrl-C arrête sans rien perdre."
        case .flushRetrying(let attempt, let of, let reason, let seconds):
            "La tentative \(attempt) sur \(of) a échoué (\(reason)) ; nouvel essai dans \(seconds) s."
        case .flushWaiting(let seconds): "Nouvel essai dans \(seconds) s (Ctrl-C arrête ; rien n'est perdu)."
        case .nothingWaits: "Rien n'attend d'être envoyé."
        case .recordsWait(let count):
            "\(plural(count, "fiche attend d'être envoyée", "fiches attendent d'être envoyées")) : lancez 'intake flush'."
        case .recordsSetAside(let count):
            "\(plural(count, "fiche mise de côté", "fiches mises de côté")) par le serveur : voir 'intake queue list'."
        case .answersWait(let count):
            "\(plural(count, "réponse à une référence faite hors ligne attend", "réponses à des références faites hors ligne attendent")) aussi."
        case .askingServer(let host, let seconds): "Interrogation de \(host) (\(seconds) s au maximum ; Ctrl-C arrête)…"
        case .noDrafts: "Aucun brouillon non terminé."
        case .draftsWait(let count):
            "\(plural(count, "brouillon non terminé", "brouillons non terminés")) : 'intake fill --resume' ou 'intake drafts list'."
        case .notSignedIn: "Non connecté à un serveur : 'intake login'."
        case .lastSent(let at): "Dernier envoi au serveur : \(at) UTC."
        case .lastTryFailed(let at, let reason): "La dernière tentative (\(at) UTC) a échoué : \(reason)"
        case .sendingInBackground:
            "Envoi en arrière-plan jusqu'à ce que la file d'attente soit vide (flush-watch.log, dans le dossier des données, indique où il en est)."
        case .backgroundNotStarted:
            "Pas d'envoi en arrière-plan : il faut pour cela la clé du stockage sans la demander (un stockage kiosque, INTAKE_PASSPHRASE, ou une session restée déverrouillée) ; lancez 'intake flush --watch'."
        case .signedIn(let server, let nothingNew): "Connecté à \(server)\(nothingNew ? " ; rien de nouveau." : " :")"
        case .serverNotAsked(let error):
            "Impossible d'interroger le serveur (\(error)) ; les fiches attendent ici jusqu'à ce que 'intake flush' l'atteigne."
        case .unreadNotifications(let total, let kinds):
            "\(plural(total, "notification non lue", "notifications non lues")) (\(kinds.map { "\($0.count) \($0.kind)" }.joined(separator: ", "))) : 'intake inbox'."
        case .invitations(let count, let teams):
            "\(plural(count, "invitation", "invitations")) à rejoindre \(teams.map { "« \($0) »" }.joined(separator: ", ")) : 'intake invitation list'."

        case .passphrasePrompt: "Phrase secrète du stockage local : "
        case .wrongPassphrase(let left): "Phrase secrète incorrecte (\(plural(left, "essai restant", "essais restants"))). "
        case .choosePassphrase:
            "Choisissez une phrase secrète pour les brouillons et la file d'attente de cet appareil. Elle ne peut pas être récupérée : si elle est oubliée, personne ne pourra lire ce qui attend ici. (8 caractères au moins.)\n"
        case .newPassphrase: "Nouvelle phrase secrète : "
        case .typeItAgain: "Tapez-la de nouveau : "
        case .passphraseTooShort: "Elle fait moins de 8 caractères ; choisissez-en une plus longue.\n"
        case .passphrasesDiffer: "Les deux ne correspondent pas ; choisissez-la de nouveau.\n"
        case .cancelled: "Annulé ; rien n'a été modifié."
        case .cancelledSignedIn:
            "Annulé. Vous êtes connecté (le jeton est enregistré) ; les questionnaires n'ont pas été téléchargés : lancez 'intake questionnaire pull'."
        case .interrupted: "Interrompu. Toutes les réponses données jusqu'ici sont enregistrées ; continuez avec 'intake fill --resume'."
        case .interruptedSending:
            "Envoi arrêté. La fiche est conservée, chiffrée, dans la file d'attente de cet appareil ; 'intake flush' l'enverra plus tard."

        case .questionnairesToPull(let versions):
            "\(plural(versions.count, "version de questionnaire publiée que cet appareil n'a pas téléchargée", "versions de questionnaire publiées que cet appareil n'a pas téléchargées")) (\(versions.joined(separator: ", "))) : 'intake questionnaire pull'."
        case .casesPulled(let total, let received, let dropped):
            "Cas : \(total) ouverts sur cet appareil, chiffrés (\(received) nouveaux ou modifiés, \(dropped) fermés ou confiés à quelqu'un d'autre)."
        case .casesNoneYet: "Aucun cas sur cet appareil : lancez 'intake cases pull' quand le serveur est joignable."
        case .casesNone: "Aucun cas ouvert sur cet appareil."
        case .caseColumns: "id|liste|qui|échéance|suivi par|visites"
        case .caseTheTeam: "(équipe)"
        case .casesOverdue(let count): "\(count) en retard (marqués !)."
        case .casesConflictNote: "⚠ : des visites faites hors ligne depuis la même révision divergent ; un coordinateur les examine."
        case .casesDetails: "Détails : intake cases show ID"
        case .caseHeading(let id): "Cas \(id)"
        case .caseStatus(let open): open ? "ouvert" : "fermé"
        case .caseFields: "liste|patient|suivi par|échéance|visites|conflits"
        case .caseBorn(let date): ", né(e) le \(date)"
        case .caseOverdue: "(en retard)"
        case .caseVisits(let visits, let revision): "\(visits) (révision \(revision))"
        case .caseConflicts(let properties): "\(properties) (des visites faites hors ligne depuis une même révision divergent)"
        case .caseFill(let id): "Saisir son suivi : intake fill --case \(id)"
        case .queueListEmpty: "La file d'attente est vide."
        case .queueColumns: "ID|ÉTAT|ESSAIS|EN FILE DEPUIS|TYPE|MOTIF"
        case .queueWaiting: "en attente"
        case .queueSetAsideState: "mise de côté"
        case .queueNew: "nouvelle"
        case .queueEdit: "modifiée"
        case .queueCounts(let waiting, let setAside):
            "En attente : \(waiting). Mises de côté : \(setAside). Envoyez avec 'intake flush' ; remettez en attente les fiches mises de côté avec 'intake queue retry'."
        case .queueEmpty: "La file d'attente est vide ; rien à envoyer."
        case .queueSetAside(let count): "\(plural(count, "fiche mise de côté", "fiches mises de côté")) : voir 'intake queue list'."
        case .flushed(let uploaded, let already, let setAside, let queued):
            "Envoyées : \(uploaded). Déjà sur le serveur : \(already). Mises de côté : \(setAside). Toujours en attente : \(queued)."
        case .mergedMeanwhile(let id, let how): "  \(id) a été modifiée sur le serveur entre-temps : \(how)."
        case .setAsideBecause(let id, let reason): "  \(id) mise de côté : \(reason)"
        case .setAsideFor(let id, let code, let reason):
            "  \(id) mise de côté : " + (code.flatMap { $0 == "invalid_record" ? nil : refusal($0) } ?? reason)
        case .moveToVersion(let id, let questionnaire, let from, let to):
            "  \(id) est sur la version \(from) de \(questionnaire) ; cet appareil a la version \(to) : intake drafts migrate \(id)"
        case .stoppedEarly(let reason):
            "Arrêt anticipé : \(reason). Les fiches non envoyées restent en attente ; relancez 'intake flush' plus tard."
        case .filledBeforeSignIn(let count, let account):
            count < 2
                ? "\(count) fiche a été remplie ici avant votre connexion ; elle sera envoyée au nom de \(account)."
                : "\(count) fiches ont été remplies ici avant votre connexion ; elles seront envoyées au nom de \(account)."
        case .filledBeforeSignInNoAccount(let count):
            count < 2
                ? "\(count) fiche n'a pas encore d'agent de collecte et reste en attente : elle sera envoyée au nom du compte connecté ici dès que le serveur aura indiqué lequel (reconnectez-vous avec 'intake login'), ou indiquez l'agent de collecte : intake queue retry ID --collector NAME."
                : "\(count) fiches n'ont pas encore d'agent de collecte et restent en attente : elles seront envoyées au nom du compte connecté ici dès que le serveur aura indiqué lequel (reconnectez-vous avec 'intake login'), ou indiquez l'agent de collecte : intake queue retry ID --collector NAME."
        }
    }

    /// `2 réponses`; French puts the singular for 0 and 1.
    private static func plural(_ count: Int, _ singular: String, _ plural: String) -> String {
        "\(count) \(count < 2 ? singular : plural)"
    }

    /// A file question's kind, in French.
    private static func fileKind(_ kind: AttachmentKind) -> String {
        switch kind {
        case .photo: "photo"
        case .audio: "enregistrement audio"
        case .document: "document"
        case .signature: "signature"
        }
    }

    /// A file question's kind with its indefinite article: `une photo`, `un document`.
    private static func fileKindWithArticle(_ kind: AttachmentKind) -> String {
        switch kind {
        case .photo, .signature: "une \(fileKind(kind))"
        case .audio, .document: "un \(fileKind(kind))"
        }
    }

    /// `JPEG, PNG ou WEBP`.
    private static func either(_ names: [String]) -> String {
        guard let last = names.last, names.count > 1 else { return names.joined() }
        return names.dropLast().joined(separator: ", ") + " ou " + last
    }

    /// A size as ``AttachmentKind/describe(_:)`` writes it, in French units: `10 MB` → `10 Mo`.
    private static func bytes(_ size: String) -> String {
        if size.hasSuffix(" MB") { return String(size.dropLast(2)) + "Mo" }
        if size.hasSuffix(" KB") { return String(size.dropLast(2)) + "Ko" }
        return size
    }

    private static func describe(_ place: FormText.Place) -> String {
        switch place {
        case .patient(let field): "la section patient (\(text(.patientField(field)).lowercased()))"
        case .question(let position): "la question \(position)"
        case .end: "la fin du questionnaire"
        }
    }

    private static func describe(_ hint: FormText.Hint) -> String {
        switch hint {
        case .text: "texte"
        case .yesNo: "oui/non"
        case .wholeNumber(let from, let to): "nombre entier" + range(from, to)
        case .number(let from, let to): "nombre" + range(from, to)
        case .date(let from, let to): "date YYYY-MM-DD" + range(from.map(today), to.map(today))
        case .chooseOneOfLong(let count): "choisissez-en un parmi \(count) : tapez une partie d'un nom ou un code (:list les affiche tous)"
        case .chooseOne: "choisissez-en un : tapez son numéro, son code ou son nom"
        case .chooseSomeOfLong(let count): "choisissez-en un ou plusieurs parmi \(count), séparés par des virgules (:list les affiche tous)"
        case .chooseSome: "choisissez-en un ou plusieurs, séparés par des virgules"
        case .geopoint: "lieu : latitude, longitude [altitude précision], ou lien de carte"
        }
    }

    /// A date bound: `today` said in French.
    private static func today(_ bound: String) -> String { bound == "today" ? "aujourd'hui" : bound }

    private static func range(_ lower: String?, _ upper: String?) -> String {
        switch (lower, upper) {
        case let (lower?, upper?): " de \(lower) à \(upper)"
        case let (lower?, nil): " à partir de \(lower)"
        case let (nil, upper?): " jusqu'à \(upper)"
        case (nil, nil): ""
        }
    }

    /// The server's refusal of a record by its code, in French; nil for a code not known here
    /// (its own words are said then).
    private static func refusal(_ code: String) -> String? {
        switch code {
        case "invalid_record": "la fiche ne passe pas la validation ; les problèmes sont indiqués ci-dessous."
        case "unknown_collector":
            "l'agent de collecte de la fiche n'est pas membre de cette équipe. Envoyez-la au nom d'un membre : intake fill --resume ID --collector NAME, ou intake queue retry ID --collector NAME pour une fiche mise de côté."
        case "collector_changed":
            "une modification garde l'agent de collecte de la fiche d'origine ; envoyez-la avec le même agent de collecte."
        case "unknown_patient":
            "le patient auquel la fiche renvoie n'est pas dans le registre de l'équipe ; enregistrez-le d'abord ('intake patient register')."
        case "unknown_questionnaire":
            "cette version du questionnaire n'est pas publiée sur le serveur ; téléchargez la version actuelle ('intake questionnaire pull') et passez-y le brouillon."
        case "questionnaire_closed", "questionnaire_retired", "questionnaire_draft":
            "cette version du questionnaire n'accepte pas de nouvelles fiches ; passez le brouillon à la version actuelle ('intake drafts migrate')."
        case "attachment_missing":
            "un fichier auquel la fiche renvoie n'est pas arrivé sur le serveur ; joignez-le de nouveau, puis renvoyez la fiche."
        default: nil
        }
    }

    /// A reason the record cannot be completed, said in French where its kind is known; nil
    /// otherwise (the issue's own words are said then).
    private static func describe(_ issue: ValidationIssue) -> String? {
        if let position = issue.position {
            switch issue.kind {
            case .missingRequired:
                return issue.field.map { "Question \(position) : la partie « \($0) » est obligatoire" }
                    ?? "Question \(position) : obligatoire, sans réponse"
            case .outOfRange: return "Question \(position) : la réponse est hors des limites autorisées"
            default: return nil
            }
        }
        switch (issue.kind, issue.field.flatMap(PatientIdentification.Field.init(rawValue:))) {
        case (.missingIdentification, let field?):
            return "Informations sur le patient : le champ « \(text(.patientField(field))) » n'est pas rempli"
        case (.outOfRange, .dateOfBirth?): return text(.dateOfBirthRange)
        default: return nil
        }
    }
}
