import ArgumentParser
import Foundation
import IntakeClient
import IntakeFieldwork

struct WebhookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhook",
        abstract: "Have your notifications POSTed to a URL, for when you are not at a terminal.",
        discussion: """
            Each notification is sent as signed JSON (ids and names, never patient data), in order, and \
            retried with growing waits until the receiver answers 2xx; after too many failures the \
            webhook is suspended until 'intake webhook resume'.
            """,
        subcommands: [Add.self, List.self, Remove.self, Resume.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Register a URL; prints the signing secret once.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "Where to POST (https, or http to a private address the server allows).") var url: String
        @Option(parsing: .upToNextOption, help: "Only these notification types (default: all).") var types: [String] = []
        @Option(help: "Another user's notifications (admins).") var user: String?
        @Flag(help: "Every user's notifications (admins).") var allUsers = false

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            WebhookText.registered(try await client.registerWebhook(url, types: types, user: user, allUsers: allUsers)).forEach {
                print($0)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Your webhooks (an admin's: all) and how their deliveries go.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            WebhookText.list(try await client.webhooks()).forEach { print($0) }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Stop delivering to a webhook and forget it.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The webhook's id, or its first characters.") var id: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let full = try await WebhookText.id(id, client)
            try await client.removeWebhook(full)
            print("Removed webhook \(full.prefix(8)).")
        }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resume", abstract: "Start a suspended or failing webhook again, from where it stopped.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The webhook's id, or its first characters.") var id: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let webhook = try await client.resumeWebhook(try await WebhookText.id(id, client))
            print("Webhook \(webhook.id.prefix(8)) is \(webhook.state) again; delivery starts at once.")
        }
    }
}
