/// A scope as a window sees it: connections resolved by key path on first use, each kept with
/// its subscription and its latest value until the window closes, the configuration changes, or
/// the scope itself is replaced.
///
/// A child scope comes from a parent's configured connection. The child subscribes to that
/// connection, so when the parent's source produces a new child scope (a room replaced by the
/// bridge, another container), the child drops what it resolved and resolves again from the new
/// scope, and its window hears about it.
@MainActor
package final class ScopeResolver<Scope> {
  /// How the scope is named in the `scopes` tree (`HomeScope (live)`).
  package let name: String
  /// The scope's connections, as supplied by a container or a parent.
  package private(set) var scope: Scope
  /// Called after any resolved value changes, here or in a child.
  package var onChange: (@MainActor () -> Void)?

  private var entries: [AnyKeyPath: [any ResolvedEntry]] = [:]
  private var order: [AnyKeyPath] = []
  private var children: [any ChildEntry] = []
  /// Children and configured entries by key path and configuration, when the configuration is
  /// hashable (ids are): a room of a thousand lights finds each light's scope at once.
  private var childIndex: [IndexKey: any ChildEntry] = [:]
  private var entryIndex: [IndexKey: any ResolvedEntry] = [:]

  package struct IndexKey: Hashable {
    package let keyPath: AnyKeyPath
    package let configuration: AnyHashable
  }

  package static func indexKey<Configuration>(_ keyPath: AnyKeyPath, _ configuration: Configuration) -> IndexKey? {
    guard let hashable = configuration as? any Hashable else { return nil }
    return IndexKey(keyPath: keyPath, configuration: AnyHashable(hashable))
  }
  private var parentCancellation: Cancellation?
  private(set) var isCancelled = false

  /// The session's scheduler, through which the sources deliver changes.
  package let scheduler: ConnectionScheduler

  /// A resolver for a scope a container built, in the session of `scheduler`.
  package init(scope: Scope, name: String, scheduler: ConnectionScheduler) {
    self.scope = scope
    self.name = name
    self.scheduler = scheduler
  }

  // MARK: Values

  /// The current value of a connection, resolving it the first time.
  package func value<Value>(_ keyPath: KeyPath<Scope, Connection<Value>>) -> Value {
    entry(keyPath, configuration: EmptyConfiguration()) { $0[keyPath: keyPath] }.current
  }

  /// The current value of a writable connection.
  package func value<Value>(_ keyPath: KeyPath<Scope, WritableConnection<Value>>) -> Value {
    entry(keyPath, configuration: EmptyConfiguration()) { $0[keyPath: keyPath].connection }.current
  }

  /// The current value of a configured connection for one configuration.
  package func value<Value, Configuration: Equatable>(
    _ keyPath: KeyPath<Scope, ConfiguredConnection<Value, Configuration>>, configuration: Configuration
  ) -> Value {
    entry(keyPath, configuration: configuration) { $0[keyPath: keyPath] }.current
  }

  /// Writes through a writable connection to its source. The source's change comes back to
  /// every window connected to it.
  package func write<Value>(_ keyPath: KeyPath<Scope, WritableConnection<Value>>, _ value: Value) throws(CommandError) {
    let resolved = entry(keyPath, configuration: EmptyConfiguration()) { $0[keyPath: keyPath].connection }
    guard let write = resolved.source.write else { throw CommandError("this connection cannot be written") }
    try write(value)
    resolved.current = resolved.source.read()
  }

  private func entry<Value, Configuration: Equatable>(
    _ keyPath: AnyKeyPath, configuration: Configuration,
    connection: (Scope) -> ConfiguredConnection<Value, Configuration>
  ) -> Resolved<Value, Configuration> {
    let key = Self.indexKey(keyPath, configuration)
    if let key, let existing = entryIndex[key] as? Resolved<Value, Configuration> { return existing }
    if key == nil,
      let existing = entries[keyPath]?.lazy.compactMap({ $0 as? Resolved<Value, Configuration> })
        .first(where: { $0.configuration == configuration })
    {
      return existing
    }
    let chosen = connection(scope)
    let resolved = Resolved(
      label: Self.label(keyPath, configuration), kind: chosen.kind, configuration: configuration,
      source: chosen.resolve(configuration))
    resolved.cancellation = resolved.source.subscribe(
      ChangeSink(scheduler: scheduler) { [weak self, weak resolved] in
        guard let self, let resolved, !self.isCancelled else { return }
        resolved.current = resolved.source.read()
        self.changed()
      })
    if entries[keyPath] == nil { order.append(keyPath) }
    entries[keyPath, default: []].append(resolved)
    if let key { entryIndex[key] = resolved }
    return resolved
  }

  // MARK: Child scopes

  /// The child scope a configured connection gives for `configuration`, kept until the
  /// configuration changes (see `ScopeSlot`) or the window closes.
  package func child<Child, Configuration: Equatable>(
    _ keyPath: KeyPath<Scope, ConfiguredConnection<Child, Configuration>>, configuration: Configuration,
    name: String
  ) -> ScopeResolver<Child> {
    let key = Self.indexKey(keyPath, configuration)
    if let key, let existing = childIndex[key] as? ChildScope<Child, Configuration>, !existing.resolver.isCancelled {
      return existing.resolver
    }
    if key == nil,
      let existing = children.lazy.compactMap({ $0 as? ChildScope<Child, Configuration> })
        .first(where: { $0.keyPath == keyPath && $0.configuration == configuration && !$0.resolver.isCancelled })
    {
      return existing.resolver
    }
    let connection = scope[keyPath: keyPath]
    let source = connection.resolve(configuration)
    let resolver = ScopeResolver<Child>(scope: source.read(), name: name, scheduler: scheduler)
    let entry = ChildScope(
      keyPath: keyPath, configuration: configuration, resolver: resolver,
      label: Self.label(keyPath, configuration))
    entry.source = source
    resolver.onChange = { [weak self] in self?.changed() }
    resolver.parentCancellation = source.subscribe(
      ChangeSink(scheduler: scheduler) { [weak resolver] in
        guard let resolver, !resolver.isCancelled else { return }
        resolver.replaceScope(source.read())
      })
    children.append(entry)
    if let key { childIndex[key] = entry }
    return resolver
  }

  /// Forgets a child: its subscriptions are cancelled.
  package func release(_ child: AnyObject) {
    children.removeAll { entry in
      guard entry.resolverObject === child else { return false }
      entry.cancel()
      return true
    }
    childIndex = childIndex.filter { $0.value.resolverObject !== child }
  }

  /// Replaces the scope: everything resolved from the old one is cancelled and resolved again
  /// from the new one; children re-derive from it too.
  package func replaceScope(_ newScope: Scope) {
    scope = newScope
    for list in entries.values { for entry in list { entry.cancelSubscription() } }
    entries = [:]
    entryIndex = [:]
    order = []
    for child in children { child.rederive(from: newScope) }
    changed()
  }

  private func changed() {
    onChange?()
  }

  /// Cancels every subscription here and in every child. Nothing is delivered afterwards.
  package func cancel() {
    guard !isCancelled else { return }
    isCancelled = true
    parentCancellation?.cancel()
    for list in entries.values { for entry in list { entry.cancelSubscription() } }
    for child in children { child.cancel() }
    entries = [:]
    entryIndex = [:]
    children = []
    childIndex = [:]
  }

  // MARK: The tree

  /// The scopes and connections resolved so far, indented as a tree.
  package func tree(indent: String = "") -> [String] {
    var lines = [indent + name + (isCancelled ? " (cancelled)" : "")]
    for keyPath in order {
      for entry in entries[keyPath] ?? [] { lines.append(indent + "  " + entry.describe()) }
    }
    for child in children { lines += child.tree(indent: indent + "  ") }
    return lines
  }

  package static func label<Configuration>(_ keyPath: AnyKeyPath, _ configuration: Configuration) -> String {
    var text = String(describing: keyPath)
    if let dot = text.lastIndex(of: ".") { text = String(text[text.index(after: dot)...]) }
    if configuration is EmptyConfiguration { return text }
    return "\(text)(\(configuration))"
  }
}

/// One resolved connection of a resolver.
@MainActor
package protocol ResolvedEntry: AnyObject {
  func cancelSubscription()
  func describe() -> String
}

@MainActor
package final class Resolved<Value, Configuration: Equatable>: ResolvedEntry {
  package let label: String
  package let kind: String
  package let configuration: Configuration
  package let source: ConnectionSource<Value>
  package var current: Value
  package var cancellation: Cancellation?

  package init(label: String, kind: String, configuration: Configuration, source: ConnectionSource<Value>) {
    self.label = label
    self.kind = kind
    self.configuration = configuration
    self.source = source
    self.current = source.read()
  }

  package func cancelSubscription() { cancellation?.cancel() }

  package func describe() -> String {
    var value = String(describing: current)
    if value.count > 60 { value = String(value.prefix(57)) + "..." }
    let writable = source.write == nil ? "" : ", writable"
    return "\(label) = \(value)  [\(kind)\(writable)]"
  }
}

/// A child scope of a resolver.
@MainActor
package protocol ChildEntry: AnyObject {
  var resolverObject: AnyObject { get }
  func rederive(from parentScope: Any)
  func cancel()
  func tree(indent: String) -> [String]
}

@MainActor
package final class ChildScope<Child, Configuration: Equatable>: ChildEntry {
  package let keyPath: AnyKeyPath
  package let configuration: Configuration
  package let resolver: ScopeResolver<Child>
  package let label: String
  package var source: ConnectionSource<Child>?

  package init(keyPath: AnyKeyPath, configuration: Configuration, resolver: ScopeResolver<Child>, label: String) {
    self.keyPath = keyPath
    self.configuration = configuration
    self.resolver = resolver
    self.label = label
  }

  package var resolverObject: AnyObject { resolver }

  package func rederive(from parentScope: Any) {
    guard let connection = parentScope[keyPath: keyPath] as? ConfiguredConnection<Child, Configuration> else { return }
    let source = connection.resolve(configuration)
    self.source = source
    resolver.replaceScope(source.read())
  }

  package func cancel() { resolver.cancel() }

  package func tree(indent: String) -> [String] {
    var lines = resolver.tree(indent: indent)
    lines[0] = indent + label + " → " + lines[0].drop(while: { $0 == " " })
    return lines
  }
}

/// A window's child scope that follows a configuration: resolving with the same configuration
/// keeps the child; with another, the old child is cancelled and a new one resolved.
@MainActor
package final class ScopeSlot<Parent, Child, Configuration: Equatable> {
  package let parent: ScopeResolver<Parent>
  package let keyPath: KeyPath<Parent, ConfiguredConnection<Child, Configuration>>
  package let name: (Configuration) -> String
  /// The configuration of the current child.
  package private(set) var configuration: Configuration?
  /// The current child.
  package private(set) var child: ScopeResolver<Child>?

  /// A slot for children of `parent` from `keyPath`.
  package init(
    parent: ScopeResolver<Parent>, keyPath: KeyPath<Parent, ConfiguredConnection<Child, Configuration>>,
    name: @escaping (Configuration) -> String
  ) {
    self.parent = parent
    self.keyPath = keyPath
    self.name = name
  }

  /// The child for `configuration`.
  package func resolve(_ configuration: Configuration) -> ScopeResolver<Child> {
    if let child, self.configuration == configuration { return child }
    if let child { parent.release(child) }
    let resolved = parent.child(keyPath, configuration: configuration, name: name(configuration))
    child = resolved
    self.configuration = configuration
    return resolved
  }
}
