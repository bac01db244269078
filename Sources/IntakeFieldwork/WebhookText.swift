import Foundation
import IntakeClient

/// What `intake webhook` prints.
public enum WebhookText {
    public static func list(_ webhooks: [RemoteWebhook]) -> [String] {
        guard !webhooks.isEmpty else { return ["No webhooks. Register one with 'intake webhook add URL'."] }
        var lines = [TextTable.row("ID", "STATE", "FOR", "DELIVERED", "URL", widths: [9, 10, 16, 10])]
        for webhook in webhooks {
            let url = webhook.url + (webhook.types.isEmpty ? "" : " [\(webhook.types.joined(separator: ","))]")
            lines.append(
                TextTable.row(
                    String(webhook.id.prefix(8)), webhook.state, webhook.allUsers ? "everyone" : webhook.user ?? "",
                    String(webhook.delivered),
                    url, widths: [9, 10, 16, 10]))
            if webhook.failures > 0, let error = webhook.lastError {
                let next =
                    webhook.nextAttemptAt.map { "; next try \(String($0.prefix(19)).replacingOccurrences(of: "T", with: " "))" } ?? ""
                lines.append("         \(webhook.failures) failure\(webhook.failures == 1 ? "" : "s") in a row: \(error)\(next)")
            }
        }
        return lines
    }

    /// The full id of the caller's webhook whose id starts with `prefix`.
    public static func id(_ prefix: String, _ client: IntakeClient) async throws -> String {
        try IDPrefix.resolve(prefix, among: try await client.webhooks().map(\.id), noun: "webhook", listing: "intake webhook list")
    }

    public static func registered(_ webhook: RemoteWebhook) -> [String] {
        [
            "Registered webhook \(webhook.id) for \(webhook.allUsers ? "every user's notifications" : "\(webhook.user ?? "your") notifications")"
                + (webhook.types.isEmpty ? "." : " of type \(webhook.types.joined(separator: ", "))."),
            "Signing secret (shown only now; keep it with the receiver): \(webhook.secret ?? "(not given)")",
            "Each delivery carries Intake-Signature: t=SECONDS,v1=HEX, HEX being HMAC-SHA256 of \"SECONDS.\" + body with that secret.",
        ]
    }
}
