import WorkbenchCore
import WorkbenchModuleAPI

/// The prompt: the focused window's label, screen and document.
@MainActor
enum ShellPrompt {
  /// `left catalog:library> `, or `workbench> ` when no window is open.
  static func plain(for host: Host) -> String {
    guard let window = host.focusedWindow else { return "workbench> " }
    return TerminalText.visible("\(window.label) \(window.screen.name):\(window.documentName)") + "> "
  }

  /// The prompt for readline; colour sequences are wrapped in \001...\002 so readline can
  /// measure the prompt's width.
  static func styled(for host: Host, color: Bool) -> String {
    let text = plain(for: host)
    guard color else { return text }
    let body = String(text.dropLast(2))
    return "\u{01}\u{1B}[1;32m\u{02}" + body + "\u{01}\u{1B}[0m\u{02}> "
  }
}
