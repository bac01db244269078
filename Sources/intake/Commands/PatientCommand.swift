import ArgumentParser
import Foundation
import IntakeClient
import IntakeCore
import IntakeFieldwork
import IntakeStore
import IntakeTerminal

struct PatientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "patient",
        abstract: "Your team's patient registry: register, find, show, change, archive, consent, import a roster.",
        subcommands: [
            Register.self, Find.self, Show.self, Update.self, Archive.self, Restore.self, Consent.self, Import.self, Groups.self,
            Report.self,
            Reports.self,
        ])

    struct Identity: ParsableArguments {
        @Option(help: "Date of birth, YYYY-MM-DD.") var dateOfBirth: String?
        @Option(help: "\(PatientIdentification.Sex.spelled).") var sex: String?
        @Option(help: "A study or clinic number, unique in the deployment.") var externalId: String?

        /// Checked for a registration and an update alike: one kept offline is sent later, when
        /// no one is there to retype it.
        func validate() throws {
            if let sex, PatientIdentification.Sex(rawValue: sex) == nil {
                throw ValidationError("--sex is \(PatientIdentification.Sex.spelled).")
            }
            if let dateOfBirth, LocalDate(iso: dateOfBirth) == nil {
                throw ValidationError("--date-of-birth is a date such as 1990-04-12.")
            }
        }
    }

    struct Register: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "register",
            abstract: "Register a patient for your team, with data groups and consent if given.",
            discussion: """
                With no server in reach the registration is kept sealed on this machine, like a record, and \
                'intake flush' sends it; an external id another patient has is reported then, and the registration \
                kept aside (intake queue list), never lost.
                """)
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "Given name.") var givenName: String
        @Argument(help: "Family name.") var familyName: String
        @OptionGroup var identity: Identity
        @Option(help: "A data group to put the patient in (repeatable; defined by an admin).") var group: [String] = []
        @Option(help: "Consent given now: \(SharingScope.spelled).") var consent: String?
        @Option(help: "How the consent was given: \(ConsentMethod.spelled).") var consentMethod: String?

        func validate() throws {
            if (consent == nil) != (consentMethod == nil) {
                throw ValidationError(
                    "Give the consent and how it was given together: --consent SCOPE --consent-method verbal|written|electronic.")
            }
            // Checked here too: a registration kept offline is sent later, when no one is there to retype it.
            if let consent, SharingScope(rawValue: consent) == nil {
                throw ValidationError("--consent is \(SharingScope.spelled).")
            }
            if let consentMethod, ConsentMethod(rawValue: consentMethod) == nil {
                throw ValidationError("--consent-method is \(ConsentMethod.spelled).")
            }
        }

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let id = UUID().uuidString.lowercased()
            let patient = NewRemotePatient(
                id: id, givenName: givenName, familyName: familyName, dateOfBirth: identity.dateOfBirth, sex: identity.sex,
                externalId: identity.externalId, dataGroups: group.isEmpty ? nil : group,
                consent: consent.map { NewRemotePatient.Consent(scope: $0, method: consentMethod ?? "") })
            let result: RemotePatientResult
            do throws(ClientError) {
                result = try await client.registerPatients([patient])[0]
            } catch {
                guard error.isTransient else { throw error }
                // Offline: kept sealed like a record, sent by the next flush.
                let store = try storeOptions.openUnlocked()
                let payload = String(decoding: try JSONEncoder().encode(patient), as: UTF8.self)
                try store.enqueueAction(QueuedAction(kind: .patientRegistration, target: id, verb: payload))
                print("The server cannot be reached (\(error)); patient \(id) is kept on this machine and 'intake flush' registers them.")
                return
            }
            guard result.outcome == "created" else {
                throw ValidationError(
                    result.existingPatientId.map { "Not registered: patient \($0) already has this external id." }
                        ?? "Not registered (\(result.outcome)).")
            }
            print("Registered patient \(id).")
        }
    }

    struct Find: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "find", abstract: "Find patients by name, date of birth or external id (all given must match).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Option(help: "The start of the given or family name (accents and case ignored).") var name: String?
        @Option(help: "YYYY-MM-DD.") var dateOfBirth: String?
        @Option(help: "The external id.") var externalId: String?
        @Flag(help: "Archived patients too.") var includeArchived = false
        @Flag(help: "Search the copy of the registry on this machine ('intake sync' makes it), and the registrations not sent yet.")
        var offline = false

        func validate() throws {
            guard name != nil || dateOfBirth != nil || externalId != nil else {
                throw ValidationError("Give --name, --date-of-birth or --external-id.")
            }
        }

        func run() async throws {
            if offline { return try findOffline(note: nil) }
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let found: [RemotePatient]
            do throws(ClientError) {
                found = try await client.findPatients(
                    name: name, dateOfBirth: dateOfBirth, externalId: externalId, includeArchived: includeArchived)
            } catch {
                guard error.isTransient else { throw error }
                return try findOffline(note: "The server cannot be reached (\(error)); searching this machine's copy.")
            }
            PatientText.list(found).forEach { print($0) }
        }

        func findOffline(note: String?) throws {
            let copy = RegistryCopy(store: try storeOptions.openUnlocked())
            let kept = try copy.load()
            let queued = try copy.queuedRegistrations()
            guard kept != nil || !queued.isEmpty else {
                throw ValidationError("This machine has no copy of the registry; make one with 'intake sync' while the server is in reach.")
            }
            if let note { print(note) }
            let found = RegistryCopy.find(
                (kept?.patients ?? []) + queued, name: name, dateOfBirth: dateOfBirth, externalId: externalId,
                includeArchived: includeArchived)
            PatientText.list(found).forEach { print($0) }
            if let savedAt = kept?.savedAt {
                print(
                    "(This machine's copy of the registry, made \(String(Timestamp.string(from: savedAt).prefix(16)).replacingOccurrences(of: "T", with: " ")) UTC\(queued.isEmpty ? "" : "; revision 0: registered here, not sent yet").)"
                )
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "One patient, with their consent history.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The patient's id, or its first characters as listings show them.") var id: String

        @Flag(help: "Read the copy on this machine ('intake sync' makes it) and the registrations not sent yet.") var offline = false

        func run() async throws {
            if offline { return try showOffline(note: nil) }
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let id = try await PatientReference.resolve(self.id, with: client)
            let patient: RemotePatient
            do throws(ClientError) {
                patient = try await client.patient(id)
            } catch {
                guard error.isTransient else { throw error }
                return try showOffline(note: "The server cannot be reached (\(error)); this machine's copy:")
            }
            PatientText.show(patient).forEach { print($0) }
            let (scope, history) = try await client.consentHistory(id)
            PatientText.consent(scope: scope, history: history).forEach { print($0) }
        }

        func showOffline(note: String?) throws {
            let copy = RegistryCopy(store: try storeOptions.openUnlocked())
            guard let patient = try copy.patient(id) else {
                throw ValidationError(
                    "This machine's copy of the registry has no patient \(id.prefix(36)); make one with 'intake sync' while the server is in reach."
                )
            }
            if let note { print(note) }
            PatientText.show(patient).forEach { print($0) }
            let made = try copy.load().map {
                String(Timestamp.string(from: $0.savedAt).prefix(16)).replacingOccurrences(of: "T", with: " ")
            }
            print(
                patient.revision == 0
                    ? "(Registered on this machine, not sent yet; 'intake flush' sends it.)"
                    : "(This machine's copy of the registry, made \(made ?? "?") UTC; the consent history is read on the server.)")
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Change a patient's identification (refused if someone changed it since you read it).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The patient's id, or its first characters as listings show them.") var id: String
        @Option(help: "The revision you read (intake patient show); default: the current one.") var baseRevision: Int?
        @Option(help: "Given name.") var givenName: String?
        @Option(help: "Family name.") var familyName: String?
        @OptionGroup var identity: Identity
        @Option(parsing: .upToNextOption, help: "Fields to clear: date_of_birth, sex, external_id.") var clear: [String] = []
        @Option(help: "Put the patient in this data group (repeatable).") var addGroup: [String] = []
        @Option(help: "Take the patient out of this data group (repeatable).") var removeGroup: [String] = []
        @Option(
            help:
                "The whole set of data groups the patient is to be in, comma-separated ('' for none), instead of --add-group and --remove-group."
        )
        var groups: String?

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let id = try await PatientReference.resolve(self.id, with: client)
            var changes: [String: String?] = [:]
            for (field, value) in [
                ("givenName", givenName), ("familyName", familyName), ("dateOfBirth", identity.dateOfBirth), ("sex", identity.sex),
                ("externalId", identity.externalId),
            ] {
                if let value { changes[field] = .some(value) }
            }
            let cleared = ["date_of_birth": "dateOfBirth", "sex": "sex", "external_id": "externalId"]
            for name in clear {
                guard let field = cleared[name] else { throw ValidationError("--clear takes date_of_birth, sex or external_id.") }
                changes[field] = .some(nil)
            }
            guard !changes.isEmpty || !addGroup.isEmpty || !removeGroup.isEmpty || groups != nil else {
                throw ValidationError("Give at least one field to change, or --add-group / --remove-group.")
            }
            let wholeSet = groups.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
            let patient: RemotePatient
            do throws(ClientError) {
                let revision: Int
                if let baseRevision { revision = baseRevision } else { revision = try await client.patient(id).revision }
                patient = try await client.updatePatient(
                    id, baseRevision: revision, changes: changes, addGroups: addGroup, removeGroups: removeGroup, groups: wholeSet)
            } catch {
                guard error.isTransient else { throw error }
                // Offline: the change is kept, based on the revision this machine's copy holds.
                let store = try storeOptions.openUnlocked()
                guard let known = try RegistryCopy(store: store).patient(id) else {
                    throw ValidationError(
                        "The server cannot be reached (\(error)), and this machine's copy of the registry has no patient \(id.prefix(36)) to change; 'intake sync' makes one while the server is in reach."
                    )
                }
                let base = baseRevision ?? (known.revision == 0 ? nil : known.revision)
                try RegistryWork.queue(
                    .patientUpdate, patient: known.id,
                    RegistryWork.Update(
                        baseRevision: base, changes: changes, addGroups: addGroup, removeGroups: removeGroup, groups: wholeSet), in: store)
                print(
                    "The server cannot be reached (\(error)); the change to patient \(known.id.prefix(8)) is kept on this machine and 'intake flush' sends it\(base.map { " (based on revision \($0); if someone changed the patient since, flush says so and keeps it)" } ?? "")."
                )
                return
            }
            let groups = patient.dataGroups.map { $0.isEmpty ? "" : "; groups: \($0.joined(separator: ", "))" } ?? ""
            print("Patient \(patient.id.prefix(8)) is at revision \(patient.revision)\(groups).")
        }
    }

    struct Archive: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "archive", abstract: "Archive a patient (kept; found only with --include-archived).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The patient's id, or its first characters as listings show them.") var id: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let id = try await PatientReference.resolve(self.id, with: client)
            print("Archived patient \(try await client.setPatientArchived(id, true).id.prefix(8)).")
        }
    }

    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "restore", abstract: "Restore an archived patient.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The patient's id, or its first characters as listings show them.") var id: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let id = try await PatientReference.resolve(self.id, with: client)
            print("Restored patient \(try await client.setPatientArchived(id, false).id.prefix(8)).")
        }
    }

    struct Consent: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "consent",
            abstract: "Record what a patient agreed to share: \(SharingScope.spelled).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The patient's id, or its first characters as listings show them.") var id: String
        @Argument(help: "\(SharingScope.spelled).") var scope: String
        @Option(help: "How it was given: \(ConsentMethod.spelled).") var method: String

        func validate() throws {
            // Checked here too: a consent kept offline is sent later, when no one is there to retype it.
            if SharingScope(rawValue: scope) == nil { throw ValidationError("The scope is \(SharingScope.spelled).") }
            if ConsentMethod(rawValue: method) == nil { throw ValidationError("--method is \(ConsentMethod.spelled).") }
        }

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let id = try await PatientReference.resolve(self.id, with: client)
            let patient: RemotePatient
            do throws(ClientError) {
                patient = try await client.recordConsent(id, scope: scope, method: method)
            } catch {
                guard error.isTransient else { throw error }
                let store = try storeOptions.openUnlocked()
                guard let known = try RegistryCopy(store: store).patient(id) else {
                    throw ValidationError(
                        "The server cannot be reached (\(error)), and this machine's copy of the registry has no patient \(id.prefix(36)); 'intake sync' makes one while the server is in reach."
                    )
                }
                try RegistryWork.queue(.patientConsent, patient: known.id, RegistryWork.Consent(scope: scope, method: method), in: store)
                print(
                    "The server cannot be reached (\(error)); the consent of patient \(known.id.prefix(8)) (\(scope), \(method)) is kept on this machine and 'intake flush' records it."
                )
                return
            }
            print("Patient \(patient.id.prefix(8)) now shares: \(patient.sharingScope).")
        }
    }

    struct Groups: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "groups", abstract: "The deployment's data groups (study arms, cohorts); an admin defines and deletes them.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Option(help: "Define a data group (admins): lowercase letters, digits and underscores.") var create: String?
        @Option(help: "Its description, with --create.") var description: String?
        @Option(help: "Delete a data group nobody is in (admins).") var delete: String?

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            if let create {
                try await client.createDataGroup(create, description: description)
                print("Defined data group \(create).")
            } else if let delete {
                try await client.deleteDataGroup(delete)
                print("Deleted data group \(delete).")
            } else {
                let groups = try await client.dataGroups()
                if groups.isEmpty { print("No data groups are defined.") }
                for group in groups {
                    print(
                        [group.name, group.patients.map { "\($0) patient(s)" } ?? "", group.description].filter { !$0.isEmpty }.joined(
                            separator: "\t"))
                }
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Register the patients of a roster (CSV: given_name, family_name, date_of_birth, sex, external_id).",
            discussion: """
                Rows with problems are listed by row and column. Nothing is imported while any row has one, unless \
                --skip-invalid imports the good rows. Importing the same roster again registers nobody twice. \
                --dry-run checks the roster and changes nothing.
                """)
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The roster file.") var file: String
        @Flag(help: "Check the roster and show what would be imported; change nothing.") var dryRun = false
        @Flag(help: "Import the good rows even when others have problems.") var skipInvalid = false

        func run() async throws {
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw ValidationError("Cannot read \(file) as UTF-8 text; save the roster as CSV (UTF-8).")
            }
            let roster = try Roster(csv: text)
            roster.problems.forEach { Console.error("\($0)\n") }
            if dryRun {
                print("Dry run: \(roster.rows.count) row(s) ready to import, \(roster.problems.count) with problems; nothing was sent.")
                if !roster.problems.isEmpty { throw ExitCode.failure }
                return
            }
            guard roster.problems.isEmpty || skipInvalid else {
                throw ValidationError(
                    "\(roster.problems.count) row(s) have problems (above); nothing was imported. Fix them, or import the good rows with --skip-invalid."
                )
            }
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let results = try await RosterImport.run(roster.rows, client: client)
            RosterImport.lines(results).forEach { print($0) }
            if results.contains(where: { $0.outcome != "created" && $0.outcome != "existing" }) || !roster.problems.isEmpty {
                throw ExitCode.failure
            }
        }
    }

    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "report",
            abstract: "Store a patient's dated report (replacing that date's, which is kept in history).",
            discussion: """
                The date is a calendar date (2026-11-24) or an instant (2026-11-24T08:30:00Z); a series takes one kind, \
                fixed by its first report. Values are key=value (numbers and true/false are kept as such), or --json.
                Example: intake patient report 6f9619ff-… vitals 2026-11-24 weight=61.5 systolic=120
                """)
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The patient's id, or its first characters as listings show them.") var id: String
        @Argument(help: "The series: lowercase letters, digits and underscores.") var series: String
        @Argument(help: "A calendar date or an instant.") var date: String
        @Argument(help: "key=value pairs.") var values: [String] = []
        @Option(help: ArgumentHelp("The values as one JSON object instead.", valueName: "object")) var json: String?

        func validate() throws {
            if json != nil, !values.isEmpty { throw ValidationError("Give key=value pairs or --json, not both.") }
            if json == nil, values.isEmpty {
                throw ValidationError("Give the report's values as key=value pairs, or --json '{\"weight\": 61.5}'.")
            }
        }

        func run() async throws {
            let body = try json.map { Data($0.utf8) } ?? ReportValues.object(values)
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let id = try await PatientReference.resolve(self.id, with: client)
            let report: RemoteReport
            do throws(ClientError) {
                report = try await client.putReport(patient: id, series: series, date: date, values: body)
            } catch {
                guard error.isTransient else { throw error }
                guard (try? JSONSerialization.jsonObject(with: body)) is [String: Any] else {
                    throw ValidationError("--json is one JSON object, such as '{\"weight\": 61.5}'.")
                }
                let store = try storeOptions.openUnlocked()
                guard let known = try RegistryCopy(store: store).patient(id) else {
                    throw ValidationError(
                        "The server cannot be reached (\(error)), and this machine's copy of the registry has no patient \(id.prefix(36)); 'intake sync' makes one while the server is in reach."
                    )
                }
                try RegistryWork.queue(
                    .patientReport, patient: known.id,
                    RegistryWork.Report(series: series, date: date, values: String(decoding: body, as: UTF8.self)), in: store)
                print(
                    "The server cannot be reached (\(error)); the \(series) report of \(date) for patient \(known.id.prefix(8)) is kept on this machine and 'intake flush' stores it."
                )
                return
            }
            print(
                "Stored \(report.series) \(report.date) for patient \(id.prefix(8)) (version \(report.version)\(report.version > 1 ? "; the earlier ones are kept" : ""))."
            )
        }
    }

    struct Reports: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reports",
            abstract: "A patient's reports of a series, oldest date first.",
            discussion: "Calendar dates are included at both ends; instants from --start-date (included) to --end-date (not included).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The patient's id, or its first characters as listings show them.") var id: String
        @Argument(help: "The series.") var series: String
        @Option(help: "From this date or instant.") var startDate: String?
        @Option(help: "To this date or instant.") var endDate: String?
        @Flag(help: "Only the latest report in the range.") var latest = false
        @Flag(help: "Read the copy on this machine ('intake sync' makes it).") var offline = false

        func run() async throws {
            var reports: [RemoteReport]
            if offline {
                guard let kept = try RegistryCopy(store: try storeOptions.openUnlocked()).reports(patient: id, series: series) else {
                    throw ValidationError(
                        "This machine has no copy of the registry's reports; make one with 'intake sync' while the server is in reach.")
                }
                reports = kept.filter { report in
                    (startDate.map { report.date >= $0 } ?? true)
                        && (endDate.map { report.date.count > 10 ? report.date < $0 : report.date <= $0 } ?? true)
                }
                if latest { reports = Array(reports.suffix(1)) }
            } else {
                let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
                let id = try await PatientReference.resolve(self.id, with: client)
                reports = try await client.reports(patient: id, series: series, start: startDate, end: endDate, latest: latest)
            }
            if reports.isEmpty { print("No report of \(series) in that range.") }
            for report in reports { print("\(report.date)\tversion \(report.version)\t\(report.recordedBy)\t\(report.values)") }
        }
    }
}

/// `key=value` arguments as the JSON object of a report.
enum ReportValues {
    static func object(_ pairs: [String]) throws -> Data {
        var object: [String: Any] = [:]
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw ValidationError("'\(pair.prefix(40))' is not key=value; write each value as name=value, such as weight=61.5.")
            }
            let key = String(pair[..<equals]), text = String(pair[pair.index(after: equals)...])
            guard object[key] == nil else { throw ValidationError("\(key.prefix(40)) is given twice.") }
            if let number = Int(text) {
                object[key] = number
            } else if let number = Double(text), number.isFinite, text.contains(where: \.isNumber) {
                object[key] = number
            } else if text == "true" || text == "false" {
                object[key] = text == "true"
            } else {
                object[key] = text
            }
        }
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }
}
