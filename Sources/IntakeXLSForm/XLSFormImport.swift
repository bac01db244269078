import Foundation
import IntakeCore

/// An XLSForm read as an Intake questionnaire folder: its files as text, what could not be
/// taken (by sheet, row and column), and the questionnaire those files load as.
public struct XLSFormImport: Sendable {
    /// The questionnaire's id (the form's `form_id`).
    public var id: String
    /// `manifest.txt`, the section files and their translations, the choice lists, by file name.
    public var files: [String: String]
    /// Errors and what Intake cannot express; nothing should be written while there are any,
    /// unless a partial import is asked for.
    public var problems: [XLSFormProblem]
    /// What is left out by design (presentation, metadata Intake records itself).
    public var leftOut: [XLSFormProblem]
    /// The questionnaire the files load as; nil when they do not load.
    public var questionnaire: Questionnaire?

    /// Whether anything stops a whole import (errors stop a partial one too).
    public var isComplete: Bool { problems.isEmpty && questionnaire != nil }
    public var hasErrors: Bool { problems.contains { $0.kind == .error } || questionnaire == nil }
}

/// Reads XLSForms (.xlsx, old .xls, and the .csv and .md forms pyxform reads) into Intake questionnaires.
public enum XLSFormImporter {
    /// Reads the file's sheets by its extension: `.xlsx`, `.xls`, `.csv` or `.md`.
    public static func workbook(data: Data, fileName: String) throws(WorkbookError) -> Workbook {
        switch (fileName as NSString).pathExtension.lowercased() {
        case "xlsx", "xlsm", "xls":
            // By the bytes, not the name: a workbook saved as .xlsx is sometimes named .xls.
            if data.starts(with: [0xD0, 0xCF, 0x11, 0xE0]) { return try XLSReader.read(data) }
            if (fileName as NSString).pathExtension.lowercased() == "xls", !data.starts(with: [0x50, 0x4B]) {
                throw WorkbookError(
                    "the file is not an .xls workbook (it is not an OLE compound file)",
                    hint: "save the form from Excel or LibreOffice as .xlsx")
            }
            return try XLSXReader.read(data)
        case "csv": return try TextSheets.csv(data)
        case "md": return try TextSheets.markdown(data)
        default:
            throw WorkbookError(
                "'\(fileName)' is not an XLSForm file Intake reads", hint: "give an .xlsx file (or pyxform's .csv or .md text forms)")
        }
    }

    /// Imports a workbook; `fallbackId` names the questionnaire when the settings give no
    /// `form_id` (the file's name, as pyxform does).
    /// `file` reads a file beside the form by its name (the CSV of a `select_one_from_file`), or
    /// gives nil.
    public static func importForm(_ workbook: Workbook, fallbackId: String, file: @escaping (String) -> Data? = { _ in nil })
        -> XLSFormImport
    {
        var reader = FormReader(workbook: workbook, fallbackId: fallbackId)
        reader.formFile = file
        return reader.run()
    }
}

extension XLSFormImport {
    /// Writes the questionnaire's files into `folder`, all or nothing: they are written beside
    /// it first and moved into place at once. An existing folder is replaced only when asked.
    public func write(to folder: URL, replacing: Bool) throws(WorkbookError) {
        let manager = FileManager.default
        let parent = folder.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        let exists = manager.fileExists(atPath: folder.path, isDirectory: &isDirectory)
        if exists && !replacing {
            throw WorkbookError("\(folder.path) already exists", hint: "choose another folder with --output, or replace it with --replace")
        }
        if exists && !isDirectory.boolValue {
            throw WorkbookError("\(folder.path) is a file, not a folder", hint: "choose a folder with --output")
        }
        let staging = parent.appendingPathComponent(".\(folder.lastPathComponent).import-\(UUID().uuidString.prefix(8))")
        do {
            try manager.createDirectory(at: parent, withIntermediateDirectories: true)
            try manager.createDirectory(at: staging, withIntermediateDirectories: false)
            for (name, text) in files {
                try Data(text.utf8).write(to: staging.appendingPathComponent(name), options: .atomic)
            }
            if exists {
                let old = parent.appendingPathComponent(".\(folder.lastPathComponent).replaced-\(UUID().uuidString.prefix(8))")
                try manager.moveItem(at: folder, to: old)
                do {
                    try manager.moveItem(at: staging, to: folder)
                } catch {
                    try? manager.moveItem(at: old, to: folder)
                    throw error
                }
                try? manager.removeItem(at: old)
            } else {
                try manager.moveItem(at: staging, to: folder)
            }
        } catch {
            try? manager.removeItem(at: staging)
            throw WorkbookError(
                "cannot write \(folder.path): \(error.localizedDescription)",
                hint: "check that the folder above it exists and that you may write there")
        }
    }
}
