import Foundation
import Testing

@testable import IntakeCore

/// Files as answers: typed by their bytes, limited by their question's kind, written in record
/// format 2 by content, refused with a clear reason when malformed.
struct AttachmentTests {
    static func bytes(_ head: [UInt8], count: Int = 64) -> Data { Data(head + Array(repeating: 0x20, count: max(0, count - head.count))) }

    @Test(
        arguments: [
            ([0xFF, 0xD8, 0xFF, 0xE0], AttachmentType.jpeg), ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], .png),
            (Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8), .webp), (Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8), .wav),
            (Array("%PDF-1.7".utf8), .pdf),
            (Array("OggS".utf8), .ogg), (Array("ID3".utf8), .mp3), (Array("\u{0}\u{0}\u{0}\u{20}ftypM4A ".utf8), .m4a),
        ] as [([UInt8], AttachmentType)])
    func typesAreFoundByTheirBytes(head: [UInt8], type: AttachmentType) {
        #expect(AttachmentType.sniff(Self.bytes(head)) == type)
    }

    @Test func aFileIsCheckedAgainstItsQuestionsKind() throws {
        #expect(AttachmentType.sniff(Data("GIF89a not taken".utf8)) == nil)
        #expect(AttachmentRef(bytes: Data("plain text".utf8)) == nil)
        let pdf = try #require(AttachmentRef(bytes: Self.bytes(Array("%PDF-1.4".utf8))))
        #expect(pdf.mediaType == "application/pdf" && pdf.fileName.hasSuffix(".pdf") && pdf.size == 64)
        #expect(AttachmentKind.document.problem(with: pdf) == nil)
        #expect(AttachmentKind.photo.problem(with: pdf) == "a photo is JPEG, PNG, WEBP, not application/pdf")
        var large = try #require(AttachmentRef(bytes: Self.bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])))
        large.size = 3 << 20
        #expect(AttachmentKind.signature.problem(with: large) == "a signature is at most 2 MB; this file is 3 MB")
        #expect(AttachmentKind.photo.problem(with: large) == nil)
    }

    @Test func recordsWithFilesAreFormatTwoAndRoundTripByteStable() throws {
        let q = try TestQuestionnaires.load(["1-a.txt": "Photo | id: photo | photo\nSigned | id: signed | signature | identifying\n"])
        #expect(q.question(id: "photo")?.type == .attachment(.photo) && q.question(id: "signed")?.isIdentifying == true)
        let ref = try #require(AttachmentRef(bytes: Self.bytes([0xFF, 0xD8, 0xFF, 0xDB])))
        var record = PatientResponse(questionnaire: q.reference, collector: "c", deviceId: "d")
        record[q.question(id: "photo")!.position] = .attachment(ref)
        #expect(record.format == 2 && record.attachments == [ref])
        let bytes = RecordCodec.encode(record)
        #expect(
            String(decoding: bytes, as: UTF8.self).contains(
                #"{"attachment":{"mediaType":"image/jpeg","sha256":"\#(ref.sha256)","size":64}}"#))
        #expect(RecordCodec.encode(try RecordCodec.decode(bytes)) == bytes)
        #expect(Validator(questionnaire: q).validate(record).isEmpty)
        // Malformed references are refused where they are read, saying why.
        let text = String(decoding: bytes, as: UTF8.self)
        for (broken, reason) in [
            (text.replacingOccurrences(of: ref.sha256, with: "XYZ"), "the attachment's sha256 is not 64 lower-case hex digits"),
            (text.replacingOccurrences(of: #""size":64"#, with: #""size":0"#), "the attachment is empty"),
            (
                text.replacingOccurrences(of: "image/jpeg", with: "text/html"),
                "the attachment's media type 'text/html' is not one Intake takes"
            ),
            (text.replacingOccurrences(of: #","size":64"#, with: ""), "an attachment needs its sha256, size and mediaType"),
        ] {
            #expect(throws: JSONReadError.self) { try RecordCodec.decode(Array(broken.utf8)) }
            do {
                _ = try RecordCodec.decode(Array(broken.utf8))
            } catch {
                #expect(error.description.contains(reason), "\(error)")
            }
        }
    }

    @Test(arguments: [
        ("P | id: p | compound: a text; b photo", "q/1-a.txt:1:33: error: a compound field cannot be a file"),
        ("P | id: p | photo 5", "q/1-a.txt:1:19: error: 'photo' takes no value"),
        ("X | id: x | integer\nP | id: p | photo | calculate: x", "q/1-a.txt:2: error: a calculated question cannot be a photo question"),
    ])
    func mistakesAreLocated(text: String, expected: String) {
        let problems = TestQuestionnaires.problems(["1-a.txt": text])
        #expect(problems.first.map { String($0.description.prefix(while: { $0 != "\n" })) } == expected, "\(problems)")
    }
}
