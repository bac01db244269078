import IntakeService

/// How the contract gets stores to test: a new, empty database each time, and a second store
/// on the same database (as a second server would open it) for the races.
public protocol RecordStoreFactory: Sendable {
    /// Where a new, empty store goes: a file path, a URL with a schema of its own, …
    func newDatabase() throws -> String

    /// A store on `database`, created and migrated when new.
    func open(database: String) async throws -> any RecordStore
}

extension RecordStoreFactory {
    /// A new, empty store.
    public func open() async throws -> any RecordStore { try await open(database: newDatabase()) }
}
