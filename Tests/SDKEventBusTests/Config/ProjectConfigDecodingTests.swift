import Foundation
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

@Suite struct ProjectConfigDecodingTests {
    @Test func realCDNConfigurationDecodes() throws {
        let config = try ProjectConfig(jsonData: Fixtures.projectConfigData)
        #expect(config.accountId == "10035569")
        #expect(config.project.id == "10034190")
        #expect(config.project.name == "FS-Test-Proj - DO NOT DELETE")
        #expect(config.project.type == "fullstack")
        #expect(config.experiences.count == 4)
        #expect(config.goals.count == 3)
        #expect(config.audiences.count == 1)
        #expect(config.segments.count == 1)
        #expect(config.locations.count == 5)
        #expect(config.features.count == 6)

        let experience = try #require(config.experiences.first)
        #expect(experience.id == "100334665")
        #expect(experience.key == "test-experience-ab-fullstack-1")
        #expect(experience.environment == "staging")
        #expect(experience.audienceIds == ["10033684"])
        #expect(experience.locationIds == ["1003350", "1003351", "1003352", "10036409"])
        #expect(experience.goalIds == ["100322784"])
        #expect(experience.variations.map(\.id) == ["1003142550", "1003142551"])
        #expect(experience.variations.map(\.trafficAllocation) == [50, 50])
        #expect(config.goals.map(\.key) == ["decrease-bounce-rate", "increase-engagement", "button-primary-click"])
        #expect(
            config.features[0].variables == [
                .init(key: "enabled", type: "boolean"), .init(key: "caption", type: "string"),
            ])
    }

    @Test func plainJSONDecoderDecodesTheWireForm() throws {
        let plain = try JSONDecoder().decode(ProjectConfig.self, from: Fixtures.projectConfigData)
        #expect(plain == Fixtures.projectConfig)
    }

    @Test func encodingUsesTheWireNamesAndRoundTrips() throws {
        let data = try JSONEncoder().encode(Fixtures.projectConfig)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""account_id""#) && text.contains(#""traffic_allocation""#))
        #expect(try ProjectConfig(jsonData: data) == Fixtures.projectConfig)
    }

    @Test func optionalListsMayBeAbsent() throws {
        let body = Data(#"{"account_id":"1","project":{"id":"2","name":"p"},"experiences":[]}"#.utf8)
        let config = try ProjectConfig(jsonData: body)
        #expect(config.goals.isEmpty && config.features.isEmpty && config.locations.isEmpty)
    }

    @Test func escapedStringsDecode() throws {
        let body = Data(
            #"{"account_id":"a\"b\\c\/d\u00e9\ud83d\ude00\n","project":{"id":"2","name":"p"},"experiences":[]}"#.utf8)
        #expect(try ProjectConfig(jsonData: body).accountId == "a\"b\\c/dé😀\n")
    }

    @Test(arguments: MalformedBody.corpus)
    func malformedBodyIsRejectedWithATypedErrorNamingTheProblem(_ malformed: MalformedBody) {
        do {
            _ = try ProjectConfig(jsonData: malformed.body)
            Issue.record("\(malformed.name) was accepted")
        } catch {
            #expect(error.code == malformed.code, "\(error)")
            if let path = malformed.path {
                #expect(error.path == path, "\(error)")
            }
            #expect(!error.reason.isEmpty)
            #expect(error.description.count < 400, "the description stays readable: \(error.description)")
        }
    }

    /// Over a thousand decodes of a large body: seconds under the thread sanitizer, so it runs on a
    /// thread of its own rather than holding one of the cooperative pool's two threads.
    @Test func bodyTruncatedAtEveryStructuralBoundaryIsRejectedWithItsLocation() async {
        let (checked, problems) = await offThePool { () -> (Int, [String]) in
            let bytes = Array(Fixtures.projectConfigData)
            let structural = Set("{}[],:\"".utf8)
            var checked = 0
            var problems: [String] = []
            for end in bytes.indices where structural.contains(bytes[end]) && end < bytes.count - 1 {
                let body = Data(bytes[...end])
                do throws(JSONDecodingError) {
                    _ = try ProjectConfig(jsonData: body)
                    problems.append("a body truncated after byte \(end) was accepted")
                } catch {
                    if error.code != .invalidSyntax { problems.append("after byte \(end): \(error)") }
                    if (error.byteOffset ?? -1) > body.count {
                        problems.append("after byte \(end): located beyond the body: \(error)")
                    }
                }
                checked += 1
            }
            return (checked, problems)
        }
        #expect(problems == [])
        #expect(checked > 1_000)
    }

    @Test func syntaxErrorNamesLineColumnAndPath() {
        let body = Data("{\n  \"account_id\": \"1\",\n  \"project\": {\"id\": \"1\" \"name\": \"p\"}\n}".utf8)
        #expect(throws: JSONDecodingError.self) { try ProjectConfig(jsonData: body) }
        do {
            _ = try ProjectConfig(jsonData: body)
        } catch {
            // Line 3 is `  "project": {"id": "1" "name": "p"}`: the comma is missing before "name".
            #expect((error.line, error.column, error.byteOffset) == (3, 25, 47))
            // Between two members of `project`: the path names the object, not the member before.
            #expect(error.path == "project")
            #expect(error.description.contains("line 3, column 25"))
        }
    }

    @Test func canonicallyEquivalentKeysAreDistinctKeys() throws {
        // "é" precomposed and decomposed: equal Swift strings, different JSON keys.
        let body = Data(
            #"{"account_id":"1","project":{"id":"1","name":"p"},"experiences":[],"x":{"\u00e9":1,"e\u0301":2}}"#.utf8)
        #expect(try ProjectConfig(jsonData: body).accountId == "1")
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let depth = ProjectConfig.maximumNestingDepth - 1
        let body =
            #"{"account_id":"1","project":{"id":"1","name":"p"},"experiences":[],"extra":"#
            + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}"
        #expect(try ProjectConfig(jsonData: Data(body.utf8)).accountId == "1")
    }
}
