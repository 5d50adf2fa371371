import WorkbenchModuleAPI

/// Everything needed to rebuild a session: its documents, its windows in order with their view
/// state, and which window has focus. Undo histories, frames and live work are not part of it:
/// only the intent needed to reconstruct each window.
public struct SessionRecord: Codable, Equatable, Sendable {
  /// One document.
  public struct Document: Codable, Equatable, Sendable {
    public var name: String
    public var kind: String
    public var revision: Int
    /// The body as JSON.
    public var body: String

    /// A stored document.
    public init(name: String, kind: String, revision: Int, body: String) {
      self.name = name
      self.kind = kind
      self.revision = revision
      self.body = body
    }
  }

  /// One window.
  public struct Window: Codable, Equatable, Sendable {
    public var number: Int
    public var name: String?
    public var screen: String
    public var document: String
    public var viewState: ViewStateRecord

    /// A stored window.
    public init(number: Int, name: String?, screen: String, document: String, viewState: ViewStateRecord) {
      self.number = number
      self.name = name
      self.screen = screen
      self.document = document
      self.viewState = viewState
    }
  }

  public var documents: [Document]
  public var windows: [Window]
  public var focusedWindow: Int?
  public var nextWindowNumber: Int

  /// A session record.
  public init(documents: [Document], windows: [Window], focusedWindow: Int?, nextWindowNumber: Int) {
    self.documents = documents
    self.windows = windows
    self.focusedWindow = focusedWindow
    self.nextWindowNumber = nextWindowNumber
  }
}

/// Something that could not be restored, and what was done instead.
public struct RestorationWarning: Equatable, Sendable, CustomStringConvertible {
  /// What happened, for the user.
  public let message: String
  public var description: String { message }

  /// A warning saying `message`.
  public init(message: String) { self.message = message }
}
