import Foundation
import SDKEventBusConfig
import Testing

/// The flagd fixture decodes with the default strict decoding of a `Codable` configuration, and
/// malformed bodies are rejected with a typed error that says what and where.
@Suite struct FlagSetDecodingTests {
    @Test func fixtureDecodesWithTheDefaultStrictDecoding() throws {
        let flags = try FlagSet.decode(from: FlagFixtures.data)
        #expect(flags.schema == "https://flagd.dev/schema/v0/flags.json")
        #expect(
            flags.flags.keys.sorted() == [
                "fibAlgo", "headerColor", "isColorYellow", "myBoolFlag", "myFloatFlag", "myIntFlag", "myObjectFlag",
                "myStringFlag", "targetedFlag",
            ])
        #expect(flags.flags.values.allSatisfy { $0.state == .enabled })
        #expect(flags.evaluators?.keys.sorted() == ["emailWithFaas"])
    }

    @Test func variantsKeepTheirJSONTypes() throws {
        let flags = try FlagSet.decode(from: FlagFixtures.data).flags
        #expect(flags["myBoolFlag"]?.kind == .boolean)
        #expect(flags["myBoolFlag"]?.defaultValue == .bool(true))
        #expect(flags["myStringFlag"]?.kind == .string)
        #expect(flags["myStringFlag"]?.defaultValue == .string("val1"))
        #expect(flags["myFloatFlag"]?.defaultValue == .number(1.23))
        #expect(flags["myIntFlag"]?.kind == .number)
        #expect(flags["myIntFlag"]?.variants["two"] == .number(2))
        #expect(flags["myObjectFlag"]?.kind == .object)
        #expect(flags["myObjectFlag"]?.variants["object2"] == .object(["key": .bool(true)]))
    }

    @Test func targetingIsKeptAsFreeFormJSONWithItsEvaluatorReferences() throws {
        let flags = try FlagSet.decode(from: FlagFixtures.data).flags
        #expect(flags["myBoolFlag"]?.targeting == nil)
        let fibAlgo = try #require(flags["fibAlgo"]?.targeting)
        #expect(
            fibAlgo == .object(["if": .array([.object(["$ref": .string("emailWithFaas")]), .string("binet"), .null])]))
        #expect(fibAlgo.references == ["emailWithFaas"])
        #expect(flags["headerColor"]?.targeting?.references == ["emailWithFaas"])
        #expect(flags["targetedFlag"]?.targeting?.references == [])
    }

    @Test func disabledFlagsAndMetadataDecode() throws {
        let body = Data(
            #"""
            {"flags":{"beta":{"state":"DISABLED","variants":{"on":true,"off":false},"defaultVariant":"off",
            "metadata":{"owner":"checkout"}}},"metadata":{"flagSetId":"shop","version":"7"}}
            """#.utf8)
        let flags = try FlagSet.decode(from: body)
        #expect(flags.flags["beta"]?.state == .disabled)
        #expect(flags.flags["beta"]?.metadata == ["owner": .string("checkout")])
        #expect(flags.metadata?["version"] == .string("7"))
    }

    @Test(arguments: MalformedFlagSet.corpus)
    func malformedBodyIsRejectedWithATypedErrorNamingWhatAndWhere(_ malformed: MalformedFlagSet) {
        let error = #expect(throws: JSONDecodingError.self) { try FlagSet.decode(from: malformed.body) }
        #expect(error?.code == malformed.code, "\(error.map { "\($0)" } ?? "no error")")
        if let path = malformed.path { #expect(error?.path == path, "\(error.map { "\($0)" } ?? "no error")") }
    }

    @Test func flagSetRoundTripsThroughItsCacheForm() throws {
        for flags in [FlagFixtures.flagSet, FlagFixtures.secondVersion] {
            #expect(try FlagSet.decode(from: JSONEncoder().encode(flags)) == flags)
        }
    }

    @Test func fileCacheKeepsTheFlagSetAndRejectsATamperedFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("FlagSetCache-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = JSONFileConfigCache<FlagSet>(directory: directory)
        #expect(try cache.load() == nil)
        try cache.save(FlagFixtures.flagSet, body: JSONEncoder().encode(FlagFixtures.flagSet))
        #expect(try cache.load() == FlagFixtures.flagSet)
        #expect(cache.lastSaved != nil)
        try Data(FlagFixtures.text.utf8.prefix(100)).write(to: cache.fileURL)
        let error = #expect(throws: JSONDecodingError.self) { try cache.load() }
        #expect(error?.code == .invalidSyntax)
    }
}
