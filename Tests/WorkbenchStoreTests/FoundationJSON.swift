import FoundationEssentials

enum FoundationJSON {
  static var encoder: JSONEncoder { JSONEncoder() }
}
