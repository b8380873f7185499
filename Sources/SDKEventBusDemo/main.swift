// Plays a whole SDK lifecycle on the bus as a timeline.
//
//     swift run SDKEventBusDemo          against the scriptable mock, then a feature-flag SDK's catalog
//     swift run SDKEventBusDemo --http   against a real HTTP server on 127.0.0.1, with a file cache

if CommandLine.arguments.contains("--http") {
    try await playHTTPTimeline()
} else {
    try await playMockTimeline()
    print("\n— the same lifecycle, a feature-flag SDK's own catalog —\n")
    try await playFlagTimeline()
}
