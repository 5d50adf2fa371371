import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel

/// JUnit XML and JSON reports of a run, for CI systems.
public enum ReportWriters {
  /// The run as JUnit XML: one test suite per file, one test case per scenario.
  public static func junit(_ report: SuiteReport) -> String {
    var files: [String] = []
    var byFile: [String: [ScenarioResult]] = [:]
    for result in report.results {
      if byFile[result.file] == nil { files.append(result.file) }
      byFile[result.file, default: []].append(result)
    }
    var errorsByFile: [String: [ScenarioFileError]] = [:]
    for error in report.fileErrors.flatMap(\.all) {
      if byFile[error.location.file] == nil && errorsByFile[error.location.file] == nil {
        files.append(error.location.file)
      }
      errorsByFile[error.location.file, default: []].append(error)
    }
    let errorCount = errorsByFile.values.reduce(0) { $0 + $1.count }
    var lines = [
      #"<?xml version="1.0" encoding="UTF-8"?>"#,
      "<testsuites name=\"workbench scenarios\" tests=\"\(report.results.count + errorCount)\" "
        + "failures=\"\(report.failed)\" errors=\"\(errorCount)\" skipped=\"\(report.skipped)\" "
        + "time=\"\(seconds(report.duration))\">",
    ]
    for file in files {
      let results = byFile[file] ?? []
      let errors = errorsByFile[file] ?? []
      let failed = results.filter { !$0.passed }.count
      let skipped = results.filter { $0.skipped != nil }.count
      let time = results.reduce(0) { $0 + $1.duration }
      lines.append(
        "  <testsuite name=\"\(escape(file))\" tests=\"\(results.count + errors.count)\" failures=\"\(failed)\" "
          + "errors=\"\(errors.count)\" skipped=\"\(skipped)\" time=\"\(seconds(time))\">")
      for result in results {
        let open =
          "    <testcase classname=\"\(escape(file))\" name=\"\(escape(result.name))\" "
          + "file=\"\(escape(file))\" line=\"\(result.location.line)\" time=\"\(seconds(result.duration))\""
        // Tags as properties, as pytest writes its markers.
        let properties =
          (result.tags ?? []).isEmpty
          ? []
          : ["      <properties>"]
            + (result.tags ?? []).map { "        <property name=\"tag\" value=\"\(escape($0))\"/>" }
            + ["      </properties>"]
        if let reason = result.skipped {
          lines += [open + ">"] + properties + ["      <skipped message=\"\(escape(reason))\"/>", "    </testcase>"]
          continue
        }
        guard let failure = result.failure else {
          lines += properties.isEmpty ? [open + "/>"] : [open + ">"] + properties + ["    </testcase>"]
          continue
        }
        lines.append(open + ">")
        lines += properties
        let body = (["\(failure.location): \(failure.step)", failure.message] + failure.details).joined(separator: "\n")
        lines.append(
          "      <failure message=\"\(escape(failure.message))\" type=\"failure\">\(escape(body))</failure>")
        lines.append("    </testcase>")
      }
      for error in errors {
        lines.append(
          "    <testcase classname=\"\(escape(file))\" name=\"(file)\" file=\"\(escape(file))\" line=\"\(error.location.line)\">"
        )
        lines.append(
          "      <error message=\"\(escape(error.message))\" type=\"file\">\(escape(error.description))</error>")
        lines.append("    </testcase>")
      }
      lines.append("  </testsuite>")
    }
    lines.append("</testsuites>")
    return lines.joined(separator: "\n") + "\n"
  }

  /// The run as JSON: totals, every scenario with its failure, and file errors.
  /// The JSON report (docs/run-report.schema.json, which a test holds it to).
  public static func json(_ report: SuiteReport) -> String {
    struct Document: Encodable {
      var passed: Int
      var failed: Int
      var skipped: Int
      var errors: Int
      var duration: Double
      var filesNotRunAfterFailure: Int?
      var scenarios: [ScenarioResult]
      var fileErrors: [ScenarioFileError]
      var orphanedSnapshots: [String]
    }
    // What a result counted of coverage is the run's own bookkeeping (`--coverage FILE` writes
    // the coverage); the report keeps what the schema describes.
    let scenarios = report.results.map { result in
      var kept = result
      kept.coverage = nil
      return kept
    }
    let document = Document(
      passed: report.passed, failed: report.failed, skipped: report.skipped,
      errors: report.fileErrors.flatMap(\.all).count,
      duration: report.duration, filesNotRunAfterFailure: report.filesNotRunAfterFailure, scenarios: scenarios,
      fileErrors: report.fileErrors.flatMap(\.all), orphanedSnapshots: report.orphanedSnapshots)
    guard let value = try? FrameValueEncoder(sortsKeys: true).encode(document) else { return "{}\n" }
    return value.prettyJSONText + "\n"
  }

  static func escape(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "\u{1B}": continue
      case _ where scalar.value < 0x20 && scalar != "\n" && scalar != "\t": continue
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  static func seconds(_ value: Double) -> String {
    String((value * 1_000_000).rounded() / 1_000_000)
  }
}
