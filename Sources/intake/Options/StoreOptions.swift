import ArgumentParser
import Foundation
import IntakeStore

/// `--data-dir`: where the local store lives.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "Folder for local drafts and records (default: INTAKE_DATA_DIR, else ~/.local/share/intake).",
            valueName: "path"))
    var dataDirectory: String?

    var directory: URL {
        dataDirectory.map { URL(fileURLWithPath: $0) } ?? LocalStore.defaultDirectory()
    }

    func open() throws -> LocalStore {
        try LocalStore(directory: directory)
    }
}
