import Foundation

/// What a failed call says of the storage under the server, rather than of the request: the
/// server answers 503 with a JSON error (never 500), keeps everything it acknowledged, and
/// serves again by itself once the storage does.
public enum StoreOutage: Sendable, Equatable {
    /// The disk is full (the database's, or the attachments folder's).
    case full
    /// The database cannot be reached or is failing (restarting, its disk failing).
    case unavailable

    /// What a file error says: a full disk, or nothing.
    public static func of(fileError error: any Error) -> StoreOutage? {
        if let error = error as? POSIXError, error.code == .ENOSPC || error.code == .EDQUOT { return .full }
        if let error = error as? CocoaError, error.code == .fileWriteOutOfSpace { return .full }
        let bridged = error as NSError
        if bridged.domain == NSPOSIXErrorDomain, bridged.code == Int(ENOSPC) || bridged.code == Int(EDQUOT) { return .full }
        if let underlying = bridged.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
            underlying.code == Int(ENOSPC)
        {
            return .full
        }
        return nil
    }
}
