import Foundation
import IntakePostgres
import IntakeSQLite
import IntakeServer
import IntakeService

extension IntakeServices {
    /// Opens the store the configuration names, PostgreSQL for a `postgres://` URL and the
    /// SQLite file otherwise, with the services over it: the one way in for `intake serve` and
    /// `intake admin`. Throws ``StoreOpeningError`` saying what is wrong.
    public static func open(_ configuration: ServerConfiguration) async throws(StoreOpeningError) -> IntakeServices {
        IntakeServices(configuration: configuration, store: try await openStore(configuration))
    }

    /// The store the configuration names, migrated to the current schema.
    public static func openStore(_ configuration: ServerConfiguration) async throws(StoreOpeningError) -> any RecordStore {
        do {
            if configuration.usesPostgres {
                return try await PostgresRecordStore(url: try PostgresDatabaseURL(configuration.database))
            }
            return try SQLiteRecordStore(path: configuration.database)
        } catch let error as PostgresStoreError {
            throw StoreOpeningError(error.description)
        } catch let error as SQLiteStoreError {
            throw StoreOpeningError(error.description)
        } catch {
            throw StoreOpeningError(
                "cannot open the server database \(configuration.databaseDescription); check that its folder is writable "
                    + "and that it is an Intake server database")
        }
    }
}
