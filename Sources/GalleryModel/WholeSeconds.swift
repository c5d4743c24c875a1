import Foundation

extension Date {
  /// `gallery.json` stores times to the second; the model holds them so, to read back equal.
  public static var nowInWholeSeconds: Date { Date().wholeSeconds }

  public var wholeSeconds: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
