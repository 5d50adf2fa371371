import Ledger
import WorkbenchCore
import WorkbenchModuleAPI

/// A feed of 100,000 transactions: the time from a search keystroke to the new frame, with
/// the simulated network's latency set to zero so only the work is measured.
@MainActor
enum LedgerBenchmark {
  static func run(transactions count: Int) -> [String] {
    let names = [
      "Corner Grocer", "City Power", "Bean Bar", "Oak Street Rentals", "Sam Rivera", "Streamly", "Acme Payroll",
    ]
    var rows: [String] = []
    rows.reserveCapacity(count)
    for id in 1...count {
      let name = names[id % names.count]
      rows.append(
        #"{"id":\#(id),"amount":{"cents":\#(-(id % 9000) - 1)},"counterparty":"\#(name)","memo":"item \#(id)"}"#)
    }
    let json = #"{"balance":{"cents":100000000},"recipients":[],"transactions":[\#(rows.joined(separator: ","))]}"#
    do {
      let host = try Host(modules: [LedgerModule()], clock: .virtual)
      try host.seedDocument(named: "big", kind: "ledger", json: Array(json.utf8))
      _ = try host.run(line: "network latency 0; open feed big main; clock advance 0ms")
      let queries = ["g", "gr", "gro", "groc", "groce", "grocer", "b", "be", "bean", "item 9", "item 99", "zzz"]
      var samples: [Double] = []
      var matched = 0
      for round in 0..<5 {
        for query in queries {
          let start = now()
          _ = try host.run(line: "@main search \(query); clock advance 0ms")
          let frame = host.window(named: "main")?.frame
          samples.append(now() - start)
          if round == 0 { matched += frame?["rows"]?.elements?.count ?? 0 }
        }
      }
      return [
        "ledger: a feed of \(count) transactions, search keystroke to new frame (latency 0, \(samples.count) searches):",
        "  p50 \(format(percentile(samples, 50) * 1000, 2)) ms   p99 \(format(percentile(samples, 99) * 1000, 2)) ms"
          + "   (\(matched) rows framed in the first round)",
      ]
    } catch {
      return ["ledger: \(error)"]
    }
  }
}
