/// A problem in how a module registered itself: a programmer's error, reported when the host
/// starts rather than trapping.
package struct RegistrationError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What is wrong.
  package let message: String
  package var description: String { message }

  package init(message: String) { self.message = message }
}

/// Collects what one module registers. Modules receive one in `register(into:)`.
@MainActor
public final class Registrar {
  package let manifest: ModuleManifest
  package var documentKinds: [DocumentKind] = []
  package var screenKinds: [ScreenKind] = []
  package var commands: [CommandSpec] = []
  package var diagrams: [(name: String, draw: @MainActor () -> Diagram)] = []
  package var facts: [(source: String, type: FactType, summary: String)] = []
  package var liveSources: [String] = []

  package init(manifest: ModuleManifest) {
    self.manifest = manifest
  }

  /// Registers a kind of document and the sample documents a new workspace starts with.
  public func documentKind<Body: DocumentBody>(
    _ body: Body.Type, name: String, summary: String, samples: [String: Body] = [:]
  ) {
    // Made by hand, not with `sorted(by:)` on the dictionary: that runs the standard library's
    // generic code unspecialised (the body type is not known here), which looked its types up
    // by name at run time; 0.2 M instructions at every start (docs/performance.md).
    var sampleList: [SampleDocument] = []
    sampleList.reserveCapacity(samples.count)
    for (sampleName, sample) in samples { sampleList.append(SampleDocument(name: sampleName, body: sample)) }
    sampleList.sort { $0.name < $1.name }
    documentKinds.append(
      DocumentKind(
        name: name, module: manifest.name, summary: summary, samples: sampleList,
        matches: { $0 is Body },
        decode: { bytes in
          if let body = try Body.decodeQuickly(bytes) { return body }
          return try FrameValueDecoder().decode(Body.self, fromJSON: bytes)
        },
        edit: { previous, next in
          guard let previous = previous as? Body, let next = next as? Body else { return nil }
          return next.edit(from: previous)
        },
        apply: { body, edit in
          guard let body = body as? Body else { throw DocumentEditError("the document is not a \(name) document") }
          return try body.applying(edit: edit)
        }))
  }

  /// Registers a screen: a screen model type shown in windows bound to one document kind.
  ///
  /// - Parameter render: the terminal text for a frame of this screen, derived from the frame.
  public func screen<Model: ScreenModel>(
    _ model: Model.Type,
    name: String,
    documentKind: String,
    summary: String,
    render: @escaping @Sendable (FrameValue) -> String = { $0.outlineText }
  ) {
    screen(
      name: name, documentKind: documentKind, summary: summary, render: render,
      make: { Model(document: $0, viewState: $1, environment: $2) })
  }

  /// Registers a screen with a typed frame, rendered from the typed frame.
  ///
  /// - Parameter render: the terminal text for a frame of this screen.
  public func screen<Model: FramedScreen>(
    _ model: Model.Type,
    name: String,
    documentKind: String,
    summary: String,
    render: @escaping @Sendable (Model.Frame) -> String
  ) {
    // A window renders from its model's typed frame; the frame's value is read back only where
    // there is no model (a trace's kept frames).
    let typed = ScreenKind.Typed(
      frameAndText: { model in
        (model as? Model).map { model in
          let frame = model.typedFrame
          return (frame.frameValue, { render(frame) })
        }
      })
    appendScreen(
      Model.self, name: name, documentKind: documentKind, summary: summary, render: Model.rendering(render),
      modelText: { model in (model as? Model).map { render($0.typedFrame) } }, typed: typed,
      // Eight levels are deeper than any frame goes; a record that holds its own kind stops there.
      fieldSchema: { Model.Frame.fieldSchema(depth: 8) },
      make: { Model(document: $0, viewState: $1, environment: $2) })
  }

  /// Registers a screen whose models `make` builds, for models that need more than the
  /// document, a view state and the environment (a proxy for a module process, say).
  ///
  /// - Parameters:
  ///   - frameFields: the fields its frames have, when `Model.frameFields` cannot say (one
  ///     proxy type standing for the screens of a module process).
  ///   - lifetimeFields: likewise for `Model.lifetimeFields`.
  ///   - refusalFields: likewise for `Model.refusalFields`.
  ///   - ownFields: likewise for `Model.ownFields`.
  ///   - fieldSummaries: likewise for `Model.frameFieldSummaries`.
  ///   - fieldSchema: the fields of its frames with the fields of the records inside them (what
  ///     a module process declares), for an editor; `nil` when unsaid.
  ///   - text: a window's text from its model, when the model has it for the frame it shows (a
  ///     module process renders its own frames); `nil` from it renders the frame with `render`.
  package func screen<Model: ScreenModel>(
    name: String,
    documentKind: String,
    summary: String,
    render: @escaping @Sendable (FrameValue) -> String,
    frameFields: [String]? = nil,
    lifetimeFields: [String]? = nil,
    refusalFields: [String]? = nil,
    ownFields: [String]? = nil,
    fieldSummaries: [String: String]? = nil,
    fieldSchema: [FrameFieldSchema]? = nil,
    text: (@MainActor @Sendable (Model) -> String?)? = nil,
    make: @escaping @MainActor (Model.Document, Model.State, ScreenEnvironment) -> Model
  ) {
    var modelText: (@MainActor @Sendable (AnyObject) -> String?)?
    if let text {
      modelText = { model in (model as? Model).flatMap { text($0) } }
    }
    var schema: (@Sendable () -> [FrameFieldSchema])?
    if let fieldSchema { schema = { fieldSchema } }
    appendScreen(
      Model.self, name: name, documentKind: documentKind, summary: summary, render: render, frameFields: frameFields,
      lifetimeFields: lifetimeFields, refusalFields: refusalFields, ownFields: ownFields,
      fieldSummaries: fieldSummaries, modelText: modelText, typed: nil, fieldSchema: schema, make: make)
  }

  /// The one place a screen kind is made, for every way a module registers one.
  private func appendScreen<Model: ScreenModel>(
    _ model: Model.Type, name: String, documentKind: String, summary: String,
    render: @escaping @Sendable (FrameValue) -> String, frameFields: [String]? = nil, lifetimeFields: [String]? = nil,
    refusalFields: [String]? = nil, ownFields: [String]? = nil, fieldSummaries: [String: String]? = nil,
    modelText: (@MainActor @Sendable (AnyObject) -> String?)?, typed: ScreenKind.Typed?,
    fieldSchema: (@Sendable () -> [FrameFieldSchema])?,
    make: @escaping @MainActor (Model.Document, Model.State, ScreenEnvironment) -> Model
  ) {
    screenKinds.append(
      ScreenKind(
        name: name, module: manifest.name, documentKind: documentKind, summary: summary,
        render: render, modelText: modelText, typed: typed, fieldSchema: fieldSchema,
        fieldLists: ScreenKind.FieldLists {
          ScreenKind.FieldLists.Lists(
            frame: frameFields ?? Model.frameFields, lifetime: lifetimeFields ?? Model.lifetimeFields,
            refusal: refusalFields ?? Model.refusalFields, own: ownFields ?? Model.ownFields)
        },
        fieldSummaries: { fieldSummaries ?? Model.frameFieldSummaries },
        make: { document, environment in
          guard let document = document as? Model.Document else { return nil }
          return ScreenBox<Model>(model: make(document, Model.State(), environment))
        }))
  }

  /// Registers a command.
  public func command(_ spec: CommandSpec) {
    commands.append(spec)
  }

  /// Offers a diagram drawn from the module's own code (`workbench diagram NAME`), such as a
  /// state machine generated from its transition table.
  public func diagram(_ name: String, draw: @escaping @MainActor () -> Diagram) {
    diagrams.append((name, draw))
  }

  /// Declares a source of recorded facts the module's effects use (`network.latency`) and the
  /// shape of its values, so a recording is checked where it is loaded: a value that does not
  /// fit is an error at its `file:line:column`, naming the source and the type it wants.
  public func fact(_ source: String, _ type: FactType, summary: String) {
    facts.append((source, type, summary))
  }

  /// Declares a live source the module's sessions may have (`services.addLiveSource(named:)`:
  /// a device that reports events on its own). A module process says so in its handshake, and
  /// the host then asks it for what its sources saw at the points a scenario takes changes.
  public func liveSource(_ name: String) {
    if !liveSources.contains(name) { liveSources.append(name) }
  }

  /// Registers how to start the module again after it stopped (a module that runs in its own
  /// process); the host's `restart-module NAME` runs it.
  package func restart(_ action: @escaping @MainActor () throws -> Void) {
    restartAction = action
  }
  package var restartAction: (@MainActor () throws -> Void)?
}

extension Registrar {
  /// Registers what most modules register, in one statement that reads as the module's face:
  /// a document kind (with the samples a new workspace starts with), the screens that show it,
  /// and the commands.
  public func register<Body: DocumentBody>(
    document body: Body.Type, kind: String, summary: String, samples: [String: Body] = [:],
    screens: [ScreenRegistration], commands: [CommandSpec]
  ) {
    documentKind(body, name: kind, summary: summary, samples: samples)
    for screen in screens { screen.add(self, kind) }
    for spec in commands { command(spec) }
  }
}

/// A screen to register with `Registrar.register(document:...)`, on that document kind.
@MainActor
public struct ScreenRegistration {
  package let add: @MainActor (Registrar, String) -> Void

  /// A screen whose model is `Model`, rendered as text by `render`.
  public static func screen<Model: ScreenModel>(
    _ model: Model.Type, name: String, summary: String,
    render: @escaping @Sendable (FrameValue) -> String = { $0.outlineText }
  ) -> ScreenRegistration {
    ScreenRegistration { registrar, kind in
      registrar.screen(model, name: name, documentKind: kind, summary: summary, render: render)
    }
  }

  /// A screen whose model has a typed frame, rendered as text from it by `render`.
  public static func screen<Model: FramedScreen>(
    _ model: Model.Type, name: String, summary: String, render: @escaping @Sendable (Model.Frame) -> String
  ) -> ScreenRegistration {
    ScreenRegistration { registrar, kind in
      registrar.screen(model, name: name, documentKind: kind, summary: summary, render: render)
    }
  }
}
