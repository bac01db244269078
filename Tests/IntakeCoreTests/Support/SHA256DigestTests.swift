import Testing

@testable import IntakeCore

struct SHA256DigestTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func matchesPublishedTestVectors(input: String, expected: String) {
        var digest = SHA256Digest()
        digest.update(input)
        #expect(digest.finalizeHex() == expected)
    }

    @Test func hashesInputLongerThanOneBlockFedInPieces() {
        var digest = SHA256Digest()
        for _ in 0..<1000 { digest.update(String(repeating: "a", count: 1000)) }
        #expect(digest.finalizeHex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
