// Release-build benchmarks that print figures: `swift build -c release && .build/release/workbench-bench`.
// Pass section names to run only some: startup, roundtrip, million, workspace, lights, ledger, external, scenarios,
// hostile, recording, big, reload, timers, lsp, travel, explore (explore-cost: its checks' cost alone;
// timers-swift and host-alone: the Swift kit's countdown timer, and the host's side of it, to profile;
// reply-decoding: what reading that timer's reply costs the host in-process, and writing it the kit).
#if canImport(Glibc)
  import Glibc
#endif

// As the workbench binary has it: a module that goes away is an error on the pipe, not a signal
// (and the host writes to a module's pipe without looking first).
signal(SIGPIPE, SIG_IGN)
// The big-document section's import file, written by a child of the benchmark (see
// `BigDocumentBenchmark.writeCatalog`): `workbench-bench --write-big-catalog BOOKS FILE`.
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--write-big-catalog",
  let books = Int(CommandLine.arguments[2])
{
  exit(BigDocumentBenchmark.writeCatalogHere(books: books, to: CommandLine.arguments[3]) == nil ? 1 : 0)
}
let requested = Set(CommandLine.arguments.dropFirst())
func wants(_ section: String) -> Bool { requested.isEmpty || requested.contains(section) }

#if DEBUG
  print("warning: this is a debug build; figures are only meaningful with -c release\n")
#endif

if wants("startup") { StartupBenchmark.run(iterations: 200).forEach { print($0) } }
if wants("roundtrip") { RoundTripBenchmark.run(iterations: 20_000).forEach { print($0) } }
if wants("million") { LargeCatalogBenchmark.run(count: 1_000_000).forEach { print($0) } }
if wants("big") { BigDocumentBenchmark.run(books: 1_000_000, renames: 60).forEach { print($0) } }
if wants("workspace") { WorkspaceBenchmark.run(saves: 2000).forEach { print($0) } }
if wants("lights") { LightsBenchmark.run(changes: 200).forEach { print($0) } }
if wants("ledger") { LedgerBenchmark.run(transactions: 100_000).forEach { print($0) } }
if wants("external") { ExternalModuleBenchmark.run(commands: 5000).forEach { print($0) } }
if wants("hostile") { HostileInputBenchmark.run(megabytes: 4).forEach { print($0) } }
if wants("recording") { RecordingBenchmark.run(commands: 5000).forEach { print($0) } }
if wants("timers") { TimerBenchmark.run(iterations: 1000).forEach { print($0) } }
if wants("reload") { ReloadBenchmark.run(reloads: 20).forEach { print($0) } }
if wants("lsp") { LanguageServerBenchmark.run(steps: 1000, edits: 200, files: 200).forEach { print($0) } }
if wants("travel") { TimeTravelBenchmark.run(iterations: 200, commands: 10_000).forEach { print($0) } }
if wants("explore") { ExploreBenchmark.run().forEach { print($0) } }
// Not part of a full run (`explore` prints it): the checks' cost alone, many rounds, to profile.
if requested.contains("explore-guide") { ExploreBenchmark.guidance().forEach { print($0) } }
if requested.contains("explore-cost") { print(ExploreBenchmark.checksCost(rounds: 20)) }
// Not part of a full run: explore's sessions run once and explored once, under a profiler.
if requested.contains("explore-once") { ExploreBenchmark.onceToProfile() }
// Not part of a full run: the Swift kit's countdown timer alone, many rounds, to profile.
if requested.contains("timers-swift") { print(TimerBenchmark.swiftKitTimer(iterations: 20_000)) }
// Not part of a full run: the host's reading of that timer's reply, in-process.
if requested.contains("reply-decoding") { TimerBenchmark.replyDecoding(iterations: 100_000).forEach { print($0) } }
// Not part of a full run: the host's side of that timer, the module replayed by a C child.
if requested.contains("host-alone") { TimerBenchmark.hostAloneToProfile(iterations: 20_000).forEach { print($0) } }
if wants("scenarios") { ScenarioBenchmark.run(files: 1000, stepsPerScenario: 50).forEach { print($0) } }
