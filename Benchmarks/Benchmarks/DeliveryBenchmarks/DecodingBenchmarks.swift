import Benchmark
import Foundation
import SDKEventBus

/// Registers the configuration decoding scenarios: ``ProjectConfig/init(jsonData:)`` against
/// `JSONSerialization` on the same bytes.
///
/// A wide object (one object with many keys) shows whether validation is linear in the size of the
/// body: doubling the keys must double the time. Deep nesting at the limit shows the cost of the
/// container stack. Every body is a valid configuration whose extra field the decoder ignores.
func registerDecodingBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 1,
        maxDuration: .seconds(2),
        maxIterations: 1_000
    )
    let scenarios = [
        (name: "wide object 10,000 keys", body: configBody(extra: wideObject(keys: 10_000))),
        (name: "wide object 20,000 keys", body: configBody(extra: wideObject(keys: 20_000))),
        (name: "wide object 40,000 keys", body: configBody(extra: wideObject(keys: 40_000))),
        (name: "deep nesting 128", body: configBody(extra: nestedObjects(depth: ProjectConfig.maximumNestingDepth))),
    ]
    for scenario in scenarios {
        let body = scenario.body
        Benchmark("decoding/\(scenario.name)/ProjectConfig(jsonData:)", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try ProjectConfig(jsonData: body))
            }
        }
        Benchmark("decoding/\(scenario.name)/JSONSerialization", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try JSONSerialization.jsonObject(with: body))
            }
        }
    }
}

/// A valid configuration with `extra` as an unknown top-level field.
private func configBody(extra: String) -> Data {
    Data((#"{"account_id":"1","project":{"id":"1","name":"n"},"experiences":[],"extra":"# + extra + "}").utf8)
}

/// An object with `keys` members: `{"k0":0,"k1":1,…}`.
private func wideObject(keys: Int) -> String {
    "{" + (0..<keys).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"
}

/// Objects nested so that, inside the configuration object, the body is `depth` levels deep.
private func nestedObjects(depth: Int) -> String {
    let levels = depth - 1
    return String(repeating: #"{"k":"#, count: levels - 1) + "{}" + String(repeating: "}", count: levels - 1)
}
