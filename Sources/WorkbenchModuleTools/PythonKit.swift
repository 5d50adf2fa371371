import EmbeddedKits

/// The Python kit `workbench new-module --language python` writes beside the module:
/// `workbench_module.py`, the standard library only. It speaks the protocol (docs/protocol.md)
/// for the module: framing, the handshake and its version, windows, documents and commits, the
/// host's clock (timers, protocol 2), updates of other windows, sessions, live changes, and the
/// facts a recording keeps and a replay gives back. Tests write it next to modules they start.
public enum PythonKit {
  /// The file's name, as modules import it (`import workbench_module as wb`).
  public static let fileName = "workbench_module.py"

  /// The file: Kits/python/workbench_module.py, the Python package's own, built into the binary.
  public static var source: String { EmbeddedKits.python }
}
