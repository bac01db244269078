import Testing

@testable import IntakeClient

/// Server-Sent Events read in whatever pieces the network delivers them.
struct EventStreamParserTests {
    static let stream = Array(
        "retry: 2000\n\n: keep-alive\n\nid: 7\nevent: announcement\ndata: {\"id\":7}\n\nid: 8\r\nevent: referral_received\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nid: 9\rdata:x\r\r"
            .utf8)

    static let expected = [
        ServerEvent(id: "7", event: "announcement", data: "{\"id\":7}"),
        ServerEvent(id: "8", event: "referral_received", data: "{\"a\":\n1}"),
        ServerEvent(id: "9", event: nil, data: "x"),
    ]

    @Test func eventsAreReadWholeWhateverTheLineEndingsAndCommentsAndRetryLinesAreSkipped() {
        var parser = EventStreamParser()
        #expect(parser.feed(Self.stream) == Self.expected)
    }

    @Test(arguments: [1, 2, 3, 5, 8, 13]) func eventsSplitAcrossChunksAnywhereReadTheSame(_ size: Int) {
        var parser = EventStreamParser()
        var events: [ServerEvent] = []
        for start in stride(from: 0, to: Self.stream.count, by: size) {
            events += parser.feed(Self.stream[start..<min(start + size, Self.stream.count)])
        }
        #expect(events == Self.expected)
    }

    @Test func anEventNotYetEndedByABlankLineIsNotGiven() {
        var parser = EventStreamParser()
        #expect(parser.feed(Array("id: 1\ndata: half".utf8)).isEmpty)
        #expect(parser.feed(Array("\n\n".utf8)) == [ServerEvent(id: "1", event: nil, data: "half")])
    }
}
