import Foundation
import IntakeCore
import Synchronization

/// Teams, users, passwords and tokens: the rules shared by the API and `intake admin`.
public struct AccountService: Sendable {
    public let store: any AccountStore & AuditStore
    public var bcryptCost: UInt8
    public var sessionLifetime: TimeInterval

    /// A hash of a random string nobody knows, checked when a username is unknown; made on the
    /// first such sign-in, so commands that never sign anyone in do not pay for it.
    private let dummyHash: DummyHash
    /// Token → user for every request; emptied when this server changes a user or token.
    private let tokens = TokenCache()

    /// Guessing passwords: delays, lock (see ``SignInPolicy``).
    public var policy: SignInPolicy
    /// The time sign-in delays are measured by; tests move it.
    let clock: @Sendable () -> Date
    private let throttle = SignInThrottle()
    /// Where account changes are audited: here, for the API and `intake admin` alike.
    let audit: AuditLog
    /// Who may form a team (``TeamCreation``).
    let teamCreation: TeamCreation

    public init(
        store: any AccountStore & AuditStore, bcryptCost: UInt8 = 12, sessionLifetime: TimeInterval = 30 * 24 * 3600,
        policy: SignInPolicy = SignInPolicy(),
        clock: @escaping @Sendable () -> Date = { Date() }, audit: AuditLog? = nil, teamCreation: TeamCreation = .admins
    ) {
        self.audit = audit ?? AuditLog(store: store, clock: clock)
        self.teamCreation = teamCreation
        self.store = store
        self.bcryptCost = bcryptCost
        self.sessionLifetime = sessionLifetime
        self.dummyHash = DummyHash(cost: bcryptCost)
        self.policy = policy
        self.clock = clock
    }

    public static let minimumPasswordLength = 10

    /// Creates the first admin; refused once any user exists.
    public func bootstrapAdmin(username: String, password: String) async throws -> User {
        guard try await store.userCount() == 0 else {
            throw AccountError("the database already has users; an admin creates more with 'intake admin user create'")
        }
        return try await createUser(username: username, password: password, role: .admin, team: nil)
    }

    public func teams() async throws -> [Team] { try await store.teams() }
    public func users() async throws -> [User] { try await store.users() }
    public func team(named name: String) async throws -> Team? { try await store.team(named: name) }

    /// Creates a team; audited as done by `actor` (an admin's name, or `local:<account>` for
    /// `intake admin`) when given.
    public func createTeam(name: String, by actor: String? = nil) async throws -> Team {
        let team = try await store.createTeam(name: try Self.teamName(name), at: Date())
        if let actor { try await audit.record(.teamCreate, by: actor, subject: team.name) }
        return team
    }

    /// A team's name as given, trimmed; 1 to 100 characters as sent (the contract's limit counts
    /// spaces around it too).
    static func teamName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, name.unicodeScalars.count <= 100 else { throw AccountError("a team name has 1 to 100 characters") }
        // Every other name is reached by every route that names a team (the path is decoded once).
        if let why = PathSegment.unreachable(trimmed) { throw AccountError("\(why); choose another team name") }
        return trimmed
    }

    /// A field worker or coordinator without a team forms one and leads it, where the deployment
    /// lets members form teams (``TeamCreation/members``); an admin creates one as ``createTeam(name:by:)``.
    public func formTeam(name: String, by user: User) async throws -> Team {
        if user.role == .admin { return try await createTeam(name: name, by: user.username) }
        guard teamCreation == .members else {
            throw ServiceError.forbidden("only admins create teams on this server (INTAKE_SERVER_TEAM_CREATION=admins)")
        }
        guard user.role == .fieldworker || user.role == .coordinator else {
            throw ServiceError.forbidden("a \(user.role.rawValue) does not lead a team; field workers and coordinators form teams")
        }
        guard user.teamId == nil else {
            throw ServiceError.conflict(
                "already_in_team", "you belong to team '\(user.teamName ?? "")' already; leave it before forming another")
        }
        let trimmed = try Self.teamName(name)
        switch try await store.formTeam(name: trimmed, leader: user.username, at: Date()) {
        case .formed(let team):
            forgetCachedUsers()
            try await audit.record(.teamCreate, by: user.username, subject: team.name, details: ["leader": user.username])
            return team
        case .nameTaken: throw RecordStoreError.alreadyExists("team '\(trimmed)'")
        case .alreadyInTeam(let current):
            throw ServiceError.conflict("already_in_team", "you belong to team '\(current)' already; leave it before forming another")
        case .noSuchUser: throw ServiceError.notFound("no user is named '\(user.username)'")
        }
    }

    public func createUser(username: String, password: String, role: Role, team: String?, by actor: String? = nil) async throws -> User {
        try Self.checkUsername(username)
        try Self.checkPassword(password)
        let teamId = try await teamId(named: team, for: role)
        let hash = PasswordHash.make(password, cost: bcryptCost)
        let user = try await store.createUser(NewUser(username: username, passwordHash: hash, role: role, teamId: teamId), at: Date())
        if let actor {
            try await audit.record(
                .userCreate, by: actor, subject: user.username, details: ["role": user.role.rawValue, "team": team ?? ""])
        }
        return user
    }

    /// Forgets the users cached by token, after a change to someone's role or team made elsewhere
    /// (a coordinator managing their team): the next request reads them afresh.
    package func forgetCachedUsers() {
        tokens.removeAll()
    }

    /// Changes a user; audited as done by `actor` when given, naming what changed (a new
    /// password as "changed", never itself).
    public func updateUser(
        username: String, role: Role?, team: String??, password: String?, disabled: Bool?, researchAccess: ResearchAccess? = nil,
        by actor: String? = nil
    ) async throws -> User {
        if let password { try Self.checkPassword(password) }
        var change = UserChange(
            role: role, passwordHash: password.map { PasswordHash.make($0, cost: bcryptCost) }, disabled: disabled,
            researchAccess: researchAccess)
        if let team {
            if let name = team {
                // 422, not 404: the user asked for exists; the team named in the change does not.
                guard let found = try await store.team(named: name) else {
                    throw ServiceError.invalidRequest("no team is named '\(name)'; name a team that exists (intake admin team list)")
                }
                change.teamId = .some(found.id)
            } else {
                change.teamId = .some(nil)
            }
        }
        defer { tokens.removeAll() }
        guard let user = try await store.updateUser(username: username, change) else {
            throw RecordStoreError.notFound("user '\(username)'")
        }
        if let actor {
            var changed: [String: String] = [:]
            if let role { changed["role"] = role.rawValue }
            if case .some(let newTeam) = team { changed["team"] = newTeam ?? "" }
            if password != nil { changed["password"] = "changed" }
            if let disabled { changed["disabled"] = String(disabled) }
            if let researchAccess { changed["researchAccess"] = researchAccess.rawValue }
            try await audit.record(.userChange, by: actor, subject: user.username, details: changed)
        }
        return user
    }

    /// How a sign-in ended.
    public enum SignInOutcome: Sendable {
        case signedIn(token: String, user: User, expiresAt: Date)
        /// A wrong name or password, alike.
        case refused
        /// Too many failures: try again after this many seconds (the password was not checked).
        case throttled(retryAfter: Int)
        /// Locked after repeated failures, until an admin unlocks it.
        case locked
    }

    /// Checks a password and issues a session token, under ``SignInPolicy``: per account (in the
    /// store, so every server counts the same) and per client `address` (in memory). An unknown
    /// name costs the same time and is throttled and "locked" alike, so neither the answer nor
    /// its speed tells which names exist.
    public func signIn(username: String, password: String, address: String? = nil) async throws -> SignInOutcome {
        let now = clock()
        let addressKey = address.map { "address:" + $0 }
        if let addressKey, let failures = throttle.failures(addressKey) {
            let wait = failures.last.addingTimeInterval(policy.delay(after: failures.count, free: policy.addressFreeFailures))
                .timeIntervalSince(now)
            if wait > 0 { return .throttled(retryAfter: Int(wait.rounded(.up))) }
        }
        let credentials = try await store.credentials(username: username)
        let nameKey = "name:" + username
        let unknown = credentials == nil ? throttle.failures(nameKey) : nil
        let failures = credentials?.failedSignIns ?? unknown?.count ?? 0
        let locked = credentials.map { $0.user.lockedAt != nil } ?? (failures >= policy.lockAfter)
        if locked {
            _ = PasswordHash.matches(password, hash: dummyHash.value)
            return .locked
        }
        if let last = credentials?.lastFailedSignInAt ?? unknown?.last {
            let wait = last.addingTimeInterval(policy.delay(after: failures, free: policy.freeFailures)).timeIntervalSince(now)
            if wait > 0 { return .throttled(retryAfter: Int(wait.rounded(.up))) }
        }
        guard let credentials else {
            // Spend the same time as a real check, so a response's speed does not reveal which names exist.
            _ = PasswordHash.matches(password, hash: dummyHash.value)
            if let addressKey { throttle.recordFailure(addressKey, at: now) }
            return throttle.recordFailure(nameKey, at: now).count >= policy.lockAfter ? .locked : .refused
        }
        guard PasswordHash.matches(password, hash: credentials.passwordHash) else {
            if let addressKey { throttle.recordFailure(addressKey, at: now) }
            let counted = try await store.recordSignInFailure(username: username, at: now, lockAfter: policy.lockAfter)
            return counted?.lockedAt != nil ? .locked : .refused
        }
        guard !credentials.user.disabled else { return .refused }
        if credentials.failedSignIns > 0 { try await store.clearSignInFailures(username: username) }
        let expiresAt = now.addingTimeInterval(sessionLifetime)
        let token = try await issueToken(for: credentials.user, name: "session", expiresAt: expiresAt)
        return .signedIn(token: token, user: credentials.user, expiresAt: expiresAt)
    }

    /// Lifts the lock repeated failed sign-ins put on `username`, and forgets the failures.
    public func unlock(username: String) async throws -> User {
        defer { tokens.removeAll() }
        throttle.clear("name:" + username)
        guard let user = try await store.updateUser(username: username, UserChange(unlock: true)) else {
            throw RecordStoreError.notFound("user '\(username)'")
        }
        return user
    }

    /// A new random token for `user`; only its hash is stored.
    public func issueToken(for user: User, name: String, expiresAt: Date?, style: TokenStyle = .intake) async throws -> String {
        let token = APIToken.generate(style)
        try await store.createToken(NewToken(userId: user.id, hash: APIToken.hash(token), name: name, expiresAt: expiresAt), at: Date())
        return token
    }

    public func issueToken(username: String, name: String, expiresAt: Date?, style: TokenStyle = .intake) async throws -> String {
        guard let user = try await store.credentials(username: username)?.user else {
            throw RecordStoreError.notFound("user '\(username)'")
        }
        return try await issueToken(for: user, name: name, expiresAt: expiresAt, style: style)
    }

    /// The tokens of `username`, the newest first, each named by the start of its hash.
    public func tokens(of username: String) async throws -> [TokenSummary] {
        guard let user = try await store.credentials(username: username)?.user else {
            throw RecordStoreError.notFound("user '\(username)'")
        }
        return try await store.tokens(userId: user.id)
    }

    /// Revokes the token `id` of `username` (a script's, a machine's or a sign-in's), at once on
    /// this server (its cache forgets every token) and on the trail.
    public func revokeToken(_ id: String, of username: String, by actor: String) async throws {
        defer { tokens.removeAll() }
        guard id.count == TokenSummary.idLength, id.allSatisfy(\.isHexDigit) else {
            throw AccountError("a token is named by the \(TokenSummary.idLength) hex digits 'intake admin token list' shows")
        }
        guard let user = try await store.credentials(username: username)?.user else {
            throw RecordStoreError.notFound("user '\(username)'")
        }
        guard try await store.revokeToken(userId: user.id, id: id) else { throw RecordStoreError.notFound("token \(id) of '\(username)'") }
        try await audit.record(.tokenRevoke, by: actor, subject: username, details: ["token": id.lowercased()])
    }

    public func user(token: String) async throws -> User? {
        let hash = APIToken.hash(token)
        if let cached = tokens.user(hash: hash) { return cached }
        let user = try await store.user(tokenHash: hash, now: Date())
        if let user { tokens.insert(user, hash: hash) }
        return user
    }

    /// What a token sent in a request's body (REDCap's `token` field) says.
    public enum TokenCheck: Sendable {
        case user(User)
        case unknown
        /// Too many unknown tokens from this address: try again after this many seconds.
        case throttled(retryAfter: Int)
    }

    /// The user of a token a protocol reads from the request's body, where no bearer header and
    /// no middleware stands before it: unknown tokens from one client `address` are throttled
    /// as failed sign-ins from it are (``SignInPolicy/addressFreeFailures``, then growing waits).
    public func user(token: String, address: String?) async throws -> TokenCheck {
        let now = clock()
        let key = address.map { "token-address:" + $0 }
        if let key, let failures = throttle.failures(key) {
            let wait = failures.last.addingTimeInterval(policy.delay(after: failures.count, free: policy.addressFreeFailures))
                .timeIntervalSince(now)
            if wait > 0 { return .throttled(retryAfter: Int(wait.rounded(.up))) }
        }
        if let user = try await user(token: token) { return .user(user) }
        if let key { throttle.recordFailure(key, at: now) }
        return .unknown
    }

    public func revoke(token: String) async throws {
        defer { tokens.removeAll() }
        try await store.revokeToken(hash: APIToken.hash(token))
    }

    /// Keeps the language `user` chose for the console (`en`, `ar`), wherever they sign in next.
    public func setLanguage(_ language: String, of user: User) async throws {
        defer { tokens.removeAll() }
        _ = try await store.updateUser(username: user.username, UserChange(language: language))
    }

    /// Signs `user` out everywhere: every session token sign-in gave them, on every device and
    /// browser (tokens made for scripts and machines stay). How many.
    public func revokeSessions(of user: User) async throws -> Int {
        defer { tokens.removeAll() }
        return try await store.revokeSessions(userId: user.id)
    }

    private func teamId(named team: String?, for role: Role) async throws -> Int64? {
        // A field worker or coordinator without a team waits for an invitation; until they join
        // one they may not send or read records.
        guard let team else { return nil }
        guard let found = try await store.team(named: team) else {
            throw AccountError("there is no team '\(team)'; create it first with 'intake admin team create \(team)' (API: POST /v1/teams)")
        }
        return found.id
    }

    static func checkUsername(_ name: String) throws {
        guard (2...64).contains(name.count),
            name.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0))
            })
        else { throw AccountError("a username has 2 to 64 letters, digits, '.', '_' or '-'") }
    }

    static func checkPassword(_ password: String) throws {
        guard password.count >= minimumPasswordLength, password.utf8.count <= 72 else {
            throw AccountError("a password has at least \(minimumPasswordLength) characters and at most 72 bytes")
        }
    }
}

/// A rule of accounts that a request or command broke; the message says how to comply.
public struct AccountError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// A bcrypt hash of a random string, made once on first use.
final class DummyHash: Sendable {
    private let cost: UInt8
    private let made = Mutex<String?>(nil)

    init(cost: UInt8) {
        self.cost = cost
    }

    var value: String {
        made.withLock { made in
            if let made { return made }
            let hash = PasswordHash.make(UUID().uuidString, cost: cost)
            made = hash
            return hash
        }
    }
}
