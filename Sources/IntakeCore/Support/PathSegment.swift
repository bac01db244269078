import Foundation

/// A name (a team, a user, a questionnaire id, a report series) as one segment of a URL path:
/// every byte but ASCII letters, digits and `-._~` (RFC 3986's unreserved characters) is
/// percent-encoded, so a space, `%`, `/`, `?`, `#`, `+`, a quote or an Arabic letter reaches the
/// server as the name it is. The server decodes each path parameter once, after routing
/// (`IntakeRequestContext.parameters`). The client and the console's links both encode here.
public enum PathSegment {
    public static func encoded(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: unreserved) ?? name
    }

    /// Why `name` can never be one segment of a path, or nil when it can: `.` and `..` are
    /// removed from paths by HTTP clients and browsers (RFC 3986's dot segments) even when
    /// percent-encoded, and control characters have no place in a name.
    public static func unreachable(_ name: String) -> String? {
        if name == "." || name == ".." { return "'.' and '..' cannot be names: browsers and HTTP clients drop them from addresses" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "a name holds no control characters (line breaks, tabs, escapes)"
        }
        return nil
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
