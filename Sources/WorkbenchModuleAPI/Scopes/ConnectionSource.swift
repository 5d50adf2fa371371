/// Cancels a subscription when told to, once.
@MainActor
public final class Cancellation {
  private var action: (() -> Void)?

  /// A cancellation that runs `action` the first time it is cancelled.
  package init(_ action: @escaping () -> Void) { self.action = action }

  /// A cancellation with nothing to do.
  package static var none: Cancellation { Cancellation {} }

  /// Stops the subscription; later calls do nothing.
  public func cancel() {
    let action = self.action
    self.action = nil
    action?()
  }

  /// Whether it was cancelled (a timer's: or taken away by an undo; `false` again once an undo
  /// puts the timer back).
  public var isCancelled: Bool { action == nil }

  /// Makes a cancelled one cancel again with `action`: an undo put back the timer it cancelled,
  /// and the handle its screen kept cancels it as before.
  package func renew(_ action: @escaping () -> Void) { self.action = action }

  /// Marks it cancelled without running its action (the timer was taken away already).
  package func cancelQuietly() { action = nil }
}

/// Where a connection's values come from, once resolved: the current value, a way to hear
/// about changes, and for writable connections a way to write back to the source.
@MainActor
package struct ConnectionSource<Value> {
  /// The source's current value.
  package let read: () -> Value
  /// Calls `onChange` after each change of the source until cancelled.
  package let subscribe: (ChangeSink) -> Cancellation
  /// Writes a value back to the source; throws why the source refused it.
  package let write: ((Value) throws(CommandError) -> Void)?

  /// A source from its three parts; `write` is `nil` for read-only sources.
  package init(
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
package struct EmptyConfiguration: Equatable, Hashable, Sendable {
  package init() {}
}

/// A recipe for a value, given a configuration (a room id, a light id): a scope declares
/// these, a container supplies them, a window resolves them.
@MainActor
package struct ConfiguredConnection<Value, Configuration: Equatable> {
  /// What kind of source it is, for the `scopes` tree (`constant`, `observation`, `bridge`...).
  package let kind: String
  package let resolve: (Configuration) -> ConnectionSource<Value>

  /// A connection from a function that resolves a source for a configuration.
  package init(kind: String = "custom", resolve: @escaping (Configuration) -> ConnectionSource<Value>) {
    self.kind = kind
    self.resolve = resolve
  }
}

/// A connection that needs no configuration.
package typealias Connection<Value> = ConfiguredConnection<Value, EmptyConfiguration>

/// A connection whose value can be written back to its source. A scope that declares one
/// requires every container to supply a source that accepts writes.
@MainActor
package struct WritableConnection<Value> {
  package let connection: Connection<Value>

  /// A writable connection from a source factory whose sources all have `write`.
  package init(kind: String = "custom", resolve: @escaping () -> ConnectionSource<Value>) {
    connection = Connection(kind: kind) { _ in resolve() }
  }
}
