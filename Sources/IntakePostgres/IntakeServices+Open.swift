import Foundation
import IntakeServer

extension IntakeServices {
    /// Opens the store the configuration names, PostgreSQL for a `postgres://` URL and the
    /// SQLite file otherwise, with the services over it: the one way in for `intake serve` and
    /// `intake admin`.
    public static func open(_ configuration: ServerConfiguration) async throws -> IntakeServices {
        if configuration.usesPostgres {
            let store = try await PostgresRecordStore(url: try PostgresDatabaseURL(configuration.database))
            return IntakeServices(configuration: configuration, store: store)
        }
        return try IntakeServices.sqlite(configuration)
    }
}
