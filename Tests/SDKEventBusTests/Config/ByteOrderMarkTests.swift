import Foundation
import LoopbackHTTPServer
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusCore

/// A UTF-8 byte order mark before a body is skipped wherever a body is read.
///
/// RFC 8259 §8.1 lets a parser ignore one, `JSONDecoder` does, and a CDN or an editor can add one.
/// What follows it is checked as strictly as any body: duplicate keys are still rejected.
@Suite(.timeLimit(.minutes(2))) struct ByteOrderMarkTests {
    static let byteOrderMark = Data([0xEF, 0xBB, 0xBF])
    static let body = byteOrderMark + Fixtures.projectConfigData

    @Test func aConfigurationBodyWithAByteOrderMarkDecodesAsWithout() throws {
        #expect(try ProjectConfig(jsonData: Self.body) == Fixtures.projectConfig)
        #expect(try ProjectConfig.decode(from: Self.body) == Fixtures.projectConfig)
    }

    @Test func anHTTPBodyWithAByteOrderMarkIsFetched() async throws {
        let response = LoopbackHTTPServer.Response(status: 200, body: Self.body)
        try await URLSessionConfigFetchServiceTests.withServer(answering: response) { _, service async throws in
            #expect(try await service.fetchLiveConfig() == Fixtures.projectConfig)
        }
    }

    @Test func aCachedFileWithAByteOrderMarkLoads() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = JSONFileConfigCache<ProjectConfig>(directory: directory.url)
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        try Self.body.write(to: cache.fileURL)
        #expect(try cache.load() == Fixtures.projectConfig)
    }

    @Test func aScriptedBodyWithAByteOrderMarkIsDecoded() async throws {
        let service = MockConfigFetchService([.body(Self.body)])
        #expect(try await service.fetchLiveConfig() == Fixtures.projectConfig)
    }

    @Test func aClientBecomesReadyFromABodyWithAByteOrderMark() async throws {
        let sdk = SDKClient(fetchService: MockConfigFetchService([.body(Self.body)], afterScript: .hang))
        try await sdk.ready(timeout: 30)
        #expect(sdk.config == Fixtures.projectConfig)
        await sdk.shutdown()
    }

    @Test func aWireDocumentWithAByteOrderMarkDecodes() throws {
        let json = Self.byteOrderMark + Data(#"{"event":"conversion","data":{"goalId":"g","visitorId":"v"}}"#.utf8)
        #expect(try EventPayloadValue(wireJSON: json) == .conversion(ConversionPayload(goalId: "g", visitorId: "v")))
    }

    @Test func duplicateKeysAreStillRejectedAfterAByteOrderMark() throws {
        let body = Self.byteOrderMark + Data(#"{"a":1,"a":2}"#.utf8)
        #expect {
            try ProjectConfig(jsonData: body)
        } throws: { error in
            guard let error = error as? JSONDecodingError else { return false }
            // The byte is counted in the body as served; the column as an editor shows it, after
            // the invisible mark.
            return error.code == .duplicateKey && error.path == "a" && error.byteOffset == 10 && error.column == 8
        }
    }

    @Test func aSyntaxErrorAfterAByteOrderMarkIsLocatedInTheBodyAsServed() throws {
        let body = Self.byteOrderMark + Data(#"{"version": tru}"#.utf8)
        #expect {
            try ProjectConfig(jsonData: body)
        } throws: { error in
            guard let error = error as? JSONDecodingError else { return false }
            return error.code == .invalidSyntax && error.path == "version" && error.byteOffset == 15
                && (error.line, error.column) == (1, 13)
        }
    }

    @Test func aWrongTypeAfterAByteOrderMarkNamesItsPath() throws {
        var object = Fixtures.fixtureObject()
        object["account_id"] = 5
        let body = Self.byteOrderMark + Fixtures.serialize(object)
        #expect {
            try ProjectConfig(jsonData: body)
        } throws: { error in
            (error as? JSONDecodingError).map { $0.code == .wrongType && $0.path == "account_id" } ?? false
        }
    }

    @Test func aBodyThatIsOnlyAByteOrderMarkIsEmpty() throws {
        #expect {
            try ProjectConfig(jsonData: Self.byteOrderMark + Data(" \n".utf8))
        } throws: { error in
            (error as? JSONDecodingError)?.code == .emptyBody
        }
    }

    @Test func aByteOrderMarkAnywhereButFirstIsStillRejected() throws {
        let body = Data(" ".utf8) + Self.byteOrderMark + Fixtures.projectConfigData
        #expect {
            try ProjectConfig(jsonData: body)
        } throws: { error in
            (error as? JSONDecodingError)?.code == .invalidSyntax
        }
    }
}
