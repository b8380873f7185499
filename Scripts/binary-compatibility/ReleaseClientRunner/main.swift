// Runs the release client's checks: built once against a release, run against later builds.
// Usage: release-client FIXTURES-DIRECTORY; exits 0 when every check held.

import Foundation
import ReleaseClient

let fixtures = URL(fileURLWithPath: CommandLine.arguments[1], isDirectory: true)
let (checked, failures) = await ReleaseChecks.run(fixtures: fixtures)
if failures.isEmpty {
    print("release client: all \(checked) checks held")
} else {
    print("release client FAILED \(failures.count) of \(checked) checks:\n- " + failures.joined(separator: "\n- "))
    exit(1)
}
