import Hummingbird
import IntakeService

/// A request's query parameters, read strictly like bodies are: a parameter the route does not
/// take, or one given twice, is 400 naming it (a misspelt `dropFreeText` must not export free
/// text quietly).
enum QueryParameters {
    static func read(_ request: Request, accepted: [String]) throws -> [String: String] {
        var parameters: [String: String] = [:]
        for (key, value) in request.uri.queryParameters {
            let name = String(key)
            guard accepted.contains(name) else {
                let takes =
                    accepted.isEmpty ? "this route takes no query parameters" : "this route takes \(accepted.joined(separator: ", "))"
                throw APIError(.badRequest, code: "unknown_parameter", message: "unknown parameter '\(name)'; \(takes)")
            }
            guard parameters[name] == nil else {
                throw APIError(.badRequest, code: "repeated_parameter", message: "the parameter '\(name)' is given twice; give it once")
            }
            parameters[name] = String(value)
        }
        return parameters
    }
}
