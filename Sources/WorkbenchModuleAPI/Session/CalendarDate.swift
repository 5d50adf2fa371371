/// A moment on the calendar: milliseconds since 1970-01-01T00:00:00Z, in UTC. The session's
/// time as a date (`SessionTime.date`): where a session's clock reads zero is a date too (the
/// wall time a shell started at, the `date:` a scenario states), so a date a document keeps (a
/// habit done on a day) means the same day in every session, and a replay reads the dates its
/// recording read.
public struct CalendarDate: Equatable, Hashable, Sendable, CustomStringConvertible {
  /// Milliseconds since 1970-01-01T00:00:00Z.
  public var milliseconds: Int

  /// The date `milliseconds` after 1970-01-01T00:00:00Z.
  public init(milliseconds: Int) { self.milliseconds = milliseconds }

  /// Where a scenario's clock reads zero unless its `date:` says otherwise: 2026-01-01T00:00:00Z.
  package static let scenarioDefault = CalendarDate(milliseconds: 1_767_225_600_000)

  /// The earliest and latest dates read from text: years 1 to 9999.
  static let earliest = -62_135_596_800_000
  static let latest = 253_402_300_799_999

  /// The date `duration` later (never trapping: a sum past the range stays at its end).
  package func adding(_ duration: Duration) -> CalendarDate {
    let (seconds, attoseconds) = duration.components
    let past = seconds < 0 ? Int.min : Int.max
    let (whole, overflow) = Int(clamping: seconds).multipliedReportingOverflow(by: 1000)
    guard !overflow else { return CalendarDate(milliseconds: past) }
    let (moved, first) = milliseconds.addingReportingOverflow(whole)
    let (sum, second) = moved.addingReportingOverflow(Int(attoseconds / 1_000_000_000_000_000))
    return CalendarDate(milliseconds: first || second ? past : sum)
  }

  /// The days since 1970-01-01 (negative before): one number a day, for "done today".
  public var day: Int { Self.floorDivide(milliseconds, 86_400_000) }

  /// The date's fields in UTC: month 1-12, day 1-31, weekday 1 (Monday) to 7 (Sunday).
  public var fields:
    (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int, weekday: Int)
  {
    let days = day
    let inDay = Self.floorModulo(milliseconds, 86_400_000)
    // Howard Hinnant's civil-from-days, on a proleptic Gregorian calendar.
    let shifted = days + 719_468
    let era = Self.floorDivide(shifted, 146_097)
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthPart = (5 * dayOfYear + 2) / 153
    let dayOfMonth = dayOfYear - (153 * monthPart + 2) / 5 + 1
    let month = monthPart < 10 ? monthPart + 3 : monthPart - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    let weekday = Self.floorModulo(days + 3, 7) + 1  // 1970-01-01 was a Thursday
    return (
      year, month, dayOfMonth, inDay / 3_600_000, inDay / 60_000 % 60, inDay / 1000 % 60, inDay % 1000, weekday
    )
  }

  /// ISO 8601 in UTC: `2026-12-07T09:00:00Z`, with `.250` when there are milliseconds.
  public var description: String {
    let parts = fields
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
    var year = String(parts.year)
    while year.count < 4 { year = "0" + year }
    var text =
      "\(year)-\(two(parts.month))-\(two(parts.day))T\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))"
    if parts.millisecond > 0 {
      let third =
        parts.millisecond < 10
        ? "00\(parts.millisecond)" : parts.millisecond < 100 ? "0\(parts.millisecond)" : "\(parts.millisecond)"
      text += "." + third
    }
    return text + "Z"
  }

  /// Reads ISO 8601: `2026-12-07` (midnight UTC), `2026-12-07T09:00`, `2026-12-07T09:00:30`,
  /// with `.250` milliseconds, and `Z` or an offset such as `+01:00` (none is UTC); `nil` for
  /// anything else, a day a month does not have, or a year outside 1 to 9999.
  public init?(parsing text: String) {
    let bytes = Array(text.utf8)
    var index = 0
    func number(_ count: Int) -> Int? {
      guard index + count <= bytes.count else { return nil }
      var value = 0
      for byte in bytes[index..<index + count] {
        guard byte >= 0x30, byte <= 0x39 else { return nil }
        value = value * 10 + Int(byte - 0x30)
      }
      index += count
      return value
    }
    func take(_ character: UInt8) -> Bool {
      guard index < bytes.count, bytes[index] == character else { return false }
      index += 1
      return true
    }
    guard let year = number(4), take(UInt8(ascii: "-")), let month = number(2), take(UInt8(ascii: "-")),
      let day = number(2), (1...9999).contains(year), (1...12).contains(month),
      (1...Self.daysIn(month: month, year: year)).contains(day)
    else { return nil }
    var hour = 0
    var minute = 0
    var second = 0
    var millisecond = 0
    var offset = 0
    if take(UInt8(ascii: "T")) || take(UInt8(ascii: " ")) {
      guard let h = number(2), take(UInt8(ascii: ":")), let m = number(2), h < 24, m < 60 else { return nil }
      (hour, minute) = (h, m)
      if take(UInt8(ascii: ":")) {
        guard let s = number(2), s < 60 else { return nil }
        second = s
        if take(UInt8(ascii: ".")) {
          guard let fraction = number(3) else { return nil }
          millisecond = fraction
        }
      }
      if take(UInt8(ascii: "Z")) {
      } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
        let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
        index += 1
        guard let h = number(2), take(UInt8(ascii: ":")), let m = number(2), h < 24, m < 60 else { return nil }
        offset = sign * (h * 60 + m) * 60_000
      }
    }
    guard index == bytes.count else { return nil }
    let days = Self.days(year: year, month: month, day: day)
    milliseconds =
      days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + millisecond - offset
  }

  /// Days from 1970-01-01 to a civil date (Howard Hinnant's days-from-civil).
  static func days(year: Int, month: Int, day: Int) -> Int {
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = floorDivide(shiftedYear, 400)
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  static func floorDivide(_ value: Int, _ divisor: Int) -> Int {
    let quotient = value / divisor
    return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
  }

  static func floorModulo(_ value: Int, _ divisor: Int) -> Int {
    let remainder = value % divisor
    return remainder < 0 ? remainder + divisor : remainder
  }
}
