import Foundation
import Hummingbird
import IntakeService

/// `GET /health` and `GET /openapi.yaml`: no token needed.
struct HealthController {
    let services: IntakeServices

    struct Health: Encodable {
        var status: String
        var store: String
    }

    func register(_ routes: RouteRegistrar) {
        routes.on(.get, "/health") { _, context in
            do {
                try await services.checkHealth()
                return try JSONCoding.response(Health(status: "ok", store: "ok"))
            } catch {
                context.logger.error("store check failed", metadata: ["error.type": "\(type(of: error))"])
                return try JSONCoding.response(Health(status: "unavailable", store: "failing"), status: .serviceUnavailable)
            }
        }
        routes.on(.get, "/openapi.yaml") { _, _ in
            let document = try IntakeServerApp.openAPIDocument(maxBatchRecords: services.configuration.maxBatchRecords)
            return Response(
                status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: document)))
        }
    }
}
