import Foundation

/// When a process started, from /proc, so that a recycled pid is not mistaken for a
/// placeholder's owner.
enum ProcessStart {
  static let now: Date = (startTime(of: getpid()) ?? Date()).wholeSeconds

  static func startTime(of pid: Int32) -> Date? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")"),
      let btimeLine = (try? String(contentsOfFile: "/proc/stat", encoding: .utf8))?
        .split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
      let bootTime = Double(btimeLine.dropFirst(6).trimmingCharacters(in: .whitespaces))
    else { return nil }
    // Fields after the command name; starttime is field 22 overall, the 20th after ")".
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 19, let ticks = Double(fields[19]) else { return nil }
    let hertz = Double(sysconf(Int32(_SC_CLK_TCK)))
    return Date(timeIntervalSince1970: bootTime + ticks / hertz)
  }
}

extension Date {
  /// `gallery.json` stores times to the second; the model holds them so, to read back equal.
  public static var nowInWholeSeconds: Date { Date().wholeSeconds }

  public var wholeSeconds: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
