import Foundation

/// Which processes run, from kill(2) and /proc: a placeholder's owner is alive while its
/// loading process runs (the same pid, started at the same time, on this host).
package enum ProcessStart {
  /// Whether a process with this pid runs (or exists and is someone else's). The
  /// corresponding C function is `kill` with signal 0.
  package static func exists(_ pid: Int32) -> Bool {
    // kill(0) and kill(-1) signal groups, not a process: no loader has such a pid.
    pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
  }

  /// When this process started.
  package static let ofThisProcess: Date = startTime(of: getpid()) ?? Date()

  /// When a process started, so that a recycled pid is not mistaken for a placeholder's owner.
  package static func startTime(of pid: Int32) -> Date? {
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

/// Limits the kernel puts on this process.
package enum ProcessLimits {
  /// Raises the number of descriptors this process may open to its hard limit (the soft
  /// one is often 1,024, which a few hundred idle connections exhaust); returns the limit
  /// now in force. The corresponding C functions are `getrlimit` and `setrlimit`.
  @discardableResult
  package static func raiseOpenFiles() -> Int {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
    if limit.rlim_cur < limit.rlim_max {
      var raised = limit
      raised.rlim_cur = limit.rlim_max
      if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
    }
    return Int(min(limit.rlim_cur, rlim_t(Int32.max)))
  }
}
