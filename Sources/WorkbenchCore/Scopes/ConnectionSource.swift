/// Cancels a subscription when told to, once.
@MainActor
public final class Cancellation {
  private var action: (() -> Void)?

  /// A cancellation that runs `action` the first time it is cancelled.
  public init(_ action: @escaping () -> Void) { self.action = action }

  /// A cancellation with nothing to do.
  public static var none: Cancellation { Cancellation {} }

  /// Stops the subscription; later calls do nothing.
  public func cancel() {
    let action = self.action
    self.action = nil
    action?()
  }

  /// Whether it was cancelled.
  public var isCancelled: Bool { action == nil }
}

/// Where a connection's values come from, once resolved: the current value, a way to hear
/// about changes, and for writable connections a way to write back to the source.
@MainActor
public struct ConnectionSource<Value> {
  /// The source's current value.
  public let read: () -> Value
  /// Calls `onChange` after each change of the source until cancelled.
  public let subscribe: (ChangeSink) -> Cancellation
  /// Writes a value back to the source; throws why the source refused it.
  public let write: ((Value) throws(CommandError) -> Void)?

  /// A source from its three parts; `write` is `nil` for read-only sources.
  public init(
    read: @escaping () -> Value,
    subscribe: @escaping (ChangeSink) -> Cancellation,
    write: ((Value) throws(CommandError) -> Void)? = nil
  ) {
    self.read = read
    self.subscribe = subscribe
    self.write = write
  }
}

/// The configuration of a connection that needs none.
public struct EmptyConfiguration: Equatable, Hashable, Sendable {
  public init() {}
}

/// A recipe for a value, given a configuration (a room id, a light id): a scope declares
/// these, a container supplies them, a window resolves them.
@MainActor
public struct ConfiguredConnection<Value, Configuration: Equatable> {
  /// What kind of source it is, for the `scopes` tree (`constant`, `observation`, `bridge`...).
  public let kind: String
  let resolve: (Configuration) -> ConnectionSource<Value>

  /// A connection from a function that resolves a source for a configuration.
  public init(kind: String = "custom", resolve: @escaping (Configuration) -> ConnectionSource<Value>) {
    self.kind = kind
    self.resolve = resolve
  }
}

/// A connection that needs no configuration.
public typealias Connection<Value> = ConfiguredConnection<Value, EmptyConfiguration>

/// A connection whose value can be written back to its source. A scope that declares one
/// requires every container to supply a source that accepts writes.
@MainActor
public struct WritableConnection<Value> {
  let connection: Connection<Value>

  /// A writable connection from a source factory whose sources all have `write`.
  public init(kind: String = "custom", resolve: @escaping () -> ConnectionSource<Value>) {
    connection = Connection(kind: kind) { _ in resolve() }
  }
}
