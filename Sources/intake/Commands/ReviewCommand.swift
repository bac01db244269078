import ArgumentParser
import Foundation
import IntakeClient
import IntakeFieldwork

struct ReviewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "review",
        abstract: "Review records: list them by state, show one's thread, set has_issues, approved or rejected, lock, reopen, comment.",
        discussion: """
            Every record starts 'received'. Its team's coordinators (and admins) set has_issues, approved or \
            rejected; its collector is told of has_issues and rejected ('intake inbox') and may answer with \
            'intake review comment'. An edit after a review marks the record 'edited'. 'set ... approved --lock' \
            refuses edits until 'intake review reopen'. Exports filter by state (--review-states).
            """,
        subcommands: [List.self, Show.self, Decide.self, Reopen.self, Comment.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Records by review state: your team's (coordinators), every team's (admins), those you collected (field workers).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Option(
            help: ArgumentHelp(
                "Only in these states, comma-separated: received, has_issues, edited, approved, rejected.", valueName: "states"))
        var state: String?
        @Option(help: "Only records of this questionnaire.") var questionnaire: String?
        @Option(help: "Only records this user collected.") var collector: String?
        @Option(help: "At most this many (1 to 500; default 100).") var limit: Int?

        func validate() throws {
            let known = ["received", "has_issues", "edited", "approved", "rejected"]
            if let state,
                let unknown = state.split(separator: ",", omittingEmptySubsequences: false).first(where: {
                    !known.contains(ReviewText.stateName(String($0)))
                })
            {
                throw ValidationError(
                    "'\(unknown.prefix(40))' is not a review state; give one or more of \(known.joined(separator: ", ")), separated by commas."
                )
            }
            if let limit, !(1...500).contains(limit) { throw ValidationError("--limit is a number from 1 to 500.") }
        }

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let states = state.map { $0.split(separator: ",").map { ReviewText.stateName(String($0)) }.joined(separator: ",") }
            let reviews = try await client.reviews(states: states, questionnaire: questionnaire, collector: collector, limit: limit)
            ReviewText.list(reviews).forEach { print($0) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "A record's review state and thread.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The record's id, or its first characters.") var record: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let id = try await RecordReference.resolve(record, with: client).uuidString.lowercased()
            ReviewText.show(try await client.review(of: id)).forEach { print($0) }
        }
    }

    struct Decide: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Say a record has issues, or approve or reject it (its team's coordinators; admins).",
            discussion: "has_issues and rejected tell its collector; say what to fix with --comment.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The record's id, or its first characters.") var record: String
        @Argument(help: "has_issues, approved or rejected.") var state: String
        @Flag(help: "With approved: refuse edits until the record is reopened.") var lock = false
        @Option(help: "What to tell the collector (kept in the record's thread; never in notifications).") var comment: String?

        func validate() throws {
            guard ["has_issues", "approved", "rejected"].contains(ReviewText.stateName(state)) else {
                throw ValidationError("The state is has_issues, approved or rejected ('received' and 'edited' are set by the server).")
            }
            if lock, ReviewText.stateName(state) != "approved" {
                throw ValidationError("Only an approved record is locked: give approved with --lock.")
            }
        }

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let id = try await RecordReference.resolve(record, with: client).uuidString.lowercased()
            let review = try await client.setReview(of: id, state: ReviewText.stateName(state), lock: lock, comment: comment)
            print("Record \(review.recordId.prefix(8)) is now \(ReviewText.state(review.state, locked: review.locked)).")
        }
    }

    struct Reopen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reopen",
            abstract: "Unlock an approved, locked record so it can be edited again (its team's coordinators; admins).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The record's id, or its first characters.") var record: String
        @Option(help: "Why (kept in the record's thread).") var comment: String?

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let id = try await RecordReference.resolve(record, with: client).uuidString.lowercased()
            let review = try await client.reopenReview(of: id, comment: comment)
            print("Record \(review.recordId.prefix(8)) is reopened: it can be edited again.")
        }
    }

    struct Comment: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "comment", abstract: "Write on a record's review thread; the other side (its collector, or its reviewer) is told.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The record's id, or its first characters.") var record: String
        @Argument(help: "The comment.") var text: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let id = try await RecordReference.resolve(record, with: client).uuidString.lowercased()
            _ = try await client.commentReview(of: id, text: text)
            print("Written.")
        }
    }
}
