// Plays a whole SDK lifecycle on the bus as a timeline.
//
//     swift run SDKEventBusDemo          against the scriptable mock, then a feature-flag SDK's catalog
//     swift run SDKEventBusDemo --http   against a real HTTP server on 127.0.0.1, with a file cache
//     swift run SDKEventBusDemo --trace demo-trace.json
//                                        the mock's lifecycle, its bus's timeline written as a trace
//                                        (Trace Event Format: open it in ui.perfetto.dev)

let arguments = CommandLine.arguments
if arguments.contains("--http") {
    try await playHTTPTimeline()
} else if let flag = arguments.firstIndex(of: "--trace") {
    let path = arguments.index(after: flag) < arguments.endIndex ? arguments[flag + 1] : "demo-trace.json"
    try await playMockTimeline(tracePath: path)
} else {
    try await playMockTimeline()
    print("\n— the same lifecycle, a feature-flag SDK's own catalog —\n")
    try await playFlagTimeline()
}
