import Foundation
import IntakeCore

/// A patient of the registry as the server shows it.
public struct RemotePatient: Sendable, Codable, Equatable {
    public var id: String
    public var givenName: String
    public var familyName: String
    public var dateOfBirth: String?
    public var sex: String?
    public var externalId: String?
    public var revision: Int
    public var archived: Bool
    public var sharingScope: String
    public var dataGroups: [String]?

    public init(
        id: String, givenName: String, familyName: String, dateOfBirth: String? = nil, sex: String? = nil, externalId: String? = nil,
        revision: Int = 1,
        archived: Bool = false, sharingScope: String = SharingScope.noSharing.rawValue
    ) {
        self.id = id
        self.givenName = givenName
        self.familyName = familyName
        self.dateOfBirth = dateOfBirth
        self.sex = sex
        self.externalId = externalId
        self.revision = revision
        self.archived = archived
        self.sharingScope = sharingScope
    }
}

/// A patient to register: the id makes sending it again safe.
public struct NewRemotePatient: Sendable, Codable, Equatable {
    public var id: String
    public var givenName: String
    public var familyName: String
    public var dateOfBirth: String?
    public var sex: String?
    public var externalId: String?
    /// Data groups to join at registration.
    public var dataGroups: [String]?
    /// Consent given at registration.
    public var consent: Consent?

    public struct Consent: Sendable, Codable, Equatable {
        /// no_sharing, sponsors_and_partners or all_qualified_researchers.
        public var scope: String
        /// verbal, written or electronic.
        public var method: String

        public init(scope: String, method: String) {
            self.scope = scope
            self.method = method
        }
    }

    public init(
        id: String, givenName: String, familyName: String, dateOfBirth: String?, sex: String?, externalId: String?,
        dataGroups: [String]? = nil,
        consent: Consent? = nil
    ) {
        self.id = id
        self.givenName = givenName
        self.familyName = familyName
        self.dateOfBirth = dateOfBirth
        self.sex = sex
        self.externalId = externalId
        self.dataGroups = dataGroups
        self.consent = consent
    }
}

/// What the server did with one patient of a batch.
public struct RemotePatientResult: Sendable, Decodable, Equatable {
    public var id: String?
    /// created, existing, external_id_taken or id_taken.
    public var outcome: String
    public var existingPatientId: String?
}

public struct RemoteConsent: Sendable, Decodable, Equatable {
    public var scope: String
    public var method: String
    public var recordedBy: String
    public var recordedAt: String
}

/// The patient registry and consent.
extension IntakeClient {
    public func registerPatients(_ patients: [NewRemotePatient]) async throws(ClientError) -> [RemotePatientResult] {
        struct Body: Encodable { var patients: [NewRemotePatient] }
        struct Answer: Decodable { var results: [RemotePatientResult] }
        return try await call("POST", "/v1/patients/batch", body: Body(patients: patients), expecting: 200, as: Answer.self).results
    }

    public func patient(_ id: String) async throws(ClientError) -> RemotePatient {
        try await call("GET", "/v1/patients/\(Self.segment(id))", expecting: 200, as: RemotePatient.self)
    }

    /// Patients matching every criterion given.
    public func findPatients(name: String?, dateOfBirth: String?, externalId: String?, includeArchived: Bool) async throws(ClientError)
        -> [RemotePatient]
    {
        struct Answer: Decodable { var patients: [RemotePatient] }
        var query = URLComponents()
        query.queryItems = [("name", name), ("dateOfBirth", dateOfBirth), ("externalId", externalId)]
            .compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        if includeArchived { query.queryItems?.append(URLQueryItem(name: "includeArchived", value: "true")) }
        let encoded = query.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B") ?? ""
        return try await call("GET", "/v1/patients?" + encoded, expecting: 200, as: Answer.self).patients
    }

    /// The whole ids of the patients (archived too) whose id starts with `prefix` (at most 10):
    /// what a short id from a listing stands for.
    public func patientIds(startingWith prefix: String) async throws(ClientError) -> [String] {
        struct Answer: Decodable { var patients: [RemotePatient] }
        return try await call(
            "GET", "/v1/patients?idPrefix=\(Self.segment(prefix))&includeArchived=true&limit=10", expecting: 200, as: Answer.self
        ).patients.map(\.id)
    }

    /// One page of the team's whole registry, archived patients included, in id order after
    /// `after`: what `intake sync` copies.
    public func registry(after: String?, limit: Int = 500) async throws(ClientError) -> [RemotePatient] {
        struct Answer: Decodable { var patients: [RemotePatient] }
        let cursor = after.map { "&after=\(Self.segment($0))" } ?? ""
        return try await call("GET", "/v1/patients?all=true&includeArchived=true&limit=\(limit)" + cursor, expecting: 200, as: Answer.self)
            .patients
    }

    /// Changes the given fields (a nil inner value clears the field) and data groups, all or
    /// nothing, based on `baseRevision`: groups added and removed, or the whole set replaced
    /// (`groups`).
    public func updatePatient(
        _ id: String, baseRevision: Int, changes: [String: String?], addGroups: [String] = [], removeGroups: [String] = [],
        groups: [String]? = nil
    ) async throws(ClientError) -> RemotePatient {
        var object: [String: Any] = ["baseRevision": baseRevision]
        for (field, value) in changes { object[field] = value ?? NSNull() }
        if !addGroups.isEmpty { object["addGroups"] = addGroups }
        if !removeGroups.isEmpty { object["removeGroups"] = removeGroups }
        if let groups { object["dataGroups"] = groups }
        guard let body = try? JSONSerialization.data(withJSONObject: object) else {
            throw ClientError.unexpected("the change could not be encoded")
        }
        let (status, data) = try await send("PATCH", "/v1/patients/\(Self.segment(id))", body: body)
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        guard let patient = try? JSONDecoder().decode(RemotePatient.self, from: data) else {
            throw ClientError.unexpected("the server's answer to PATCH /v1/patients could not be read")
        }
        return patient
    }

    /// archive or restore.
    public func setPatientArchived(_ id: String, _ archived: Bool) async throws(ClientError) -> RemotePatient {
        try await call(
            "POST", "/v1/patients/\(Self.segment(id))/\(archived ? "archive" : "restore")", expecting: 200, as: RemotePatient.self)
    }

    public func recordConsent(_ id: String, scope: String, method: String) async throws(ClientError) -> RemotePatient {
        try await call(
            "PUT", "/v1/patients/\(Self.segment(id))/consent", body: ["scope": scope, "method": method], expecting: 200,
            as: RemotePatient.self)
    }

    /// The deployment's data groups: name, description, and how many patients (nil for researchers).
    public func dataGroups() async throws(ClientError) -> [(name: String, description: String, patients: Int?)] {
        struct Group: Decodable {
            var name: String
            var description: String
            var patients: Int?
        }
        struct Answer: Decodable { var dataGroups: [Group] }
        return try await call("GET", "/v1/data-groups", expecting: 200, as: Answer.self).dataGroups.map {
            ($0.name, $0.description, $0.patients)
        }
    }

    public func createDataGroup(_ name: String, description: String?) async throws(ClientError) {
        struct Body: Encodable {
            var name: String
            var description: String?
        }
        struct Answer: Decodable { var name: String }
        _ = try await call("POST", "/v1/data-groups", body: Body(name: name, description: description), expecting: 201, as: Answer.self)
    }

    public func deleteDataGroup(_ name: String) async throws(ClientError) {
        let (status, data) = try await send("DELETE", "/v1/data-groups/\(Self.segment(name))", body: nil)
        guard status == 204 else { throw ClientError.from(status: status, data: data) }
    }

    public func consentHistory(_ id: String) async throws(ClientError) -> (scope: String, history: [RemoteConsent]) {
        struct Answer: Decodable {
            var scope: String
            var history: [RemoteConsent]
        }
        let answer = try await call("GET", "/v1/patients/\(Self.segment(id))/consent", expecting: 200, as: Answer.self)
        return (answer.scope, answer.history)
    }
}
