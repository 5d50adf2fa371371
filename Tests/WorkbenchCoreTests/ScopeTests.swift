import Observation
import Testing

@testable import WorkbenchCore
@testable import WorkbenchModuleAPI

/// A source that records what happened to it: reads, subscriptions, cancellations, writes.
@MainActor
final class RecordingSource<Value> {
  var value: Value
  private(set) var subscriptions = 0
  private(set) var cancellations = 0
  private(set) var writtenValues: [Value] = []
  private let observers = ObserverList()

  init(_ value: Value) { self.value = value }

  /// Changes the value at the source, as the outside world would.
  func change(to value: Value) {
    self.value = value
    observers.notifyAll()
  }

  var source: ConnectionSource<Value> {
    ConnectionSource(
      read: { self.value },
      subscribe: { onChange in
        self.subscriptions += 1
        let inner = self.observers.add(onChange)
        return Cancellation {
          self.cancellations += 1
          inner.cancel()
        }
      },
      write: { newValue throws(CommandError) in
        self.writtenValues.append(newValue)
        self.change(to: newValue)
      })
  }

  var connection: Connection<Value> { Connection(kind: "recording") { _ in self.source } }
  var writable: WritableConnection<Value> { WritableConnection(kind: "recording") { self.source } }
}

@MainActor
struct ItemScope {
  let title: Connection<String>
  let done: WritableConnection<Bool>
}

@MainActor
struct ListScope {
  let count: Connection<Int>
  let item: ConfiguredConnection<ItemScope, Int>
}

@MainActor @Observable
final class Counter {
  var value = 0
}

@MainActor
@Suite struct ScopeTests {
  /// The session scheduler these resolvers deliver changes through.
  let scheduler = ConnectionScheduler()

  @Test func connectionsResolveOnceAndFollowTheirSource() {
    let count = RecordingSource(3)
    let scope = ListScope(
      count: count.connection,
      item: ConfiguredConnection { _ in
        ConnectionSource(read: { ItemScope(title: .constant(""), done: .initial(false)) }, subscribe: { _ in .none })
      })
    let resolver = ScopeResolver(scope: scope, name: "ListScope", scheduler: scheduler)
    var heard = 0
    resolver.onChange = { heard += 1 }
    #expect(resolver.value(\.count) == 3)
    #expect(resolver.value(\.count) == 3)
    #expect(count.subscriptions == 1)
    count.change(to: 4)
    #expect(resolver.value(\.count) == 4)
    #expect(heard == 1)
  }

  @Test func writesGoBackToTheSourceAndReachEveryWindow() {
    let done = RecordingSource(false)
    let scope = ItemScope(title: .constant("Milk"), done: done.writable)
    let first = ScopeResolver(scope: scope, name: "first", scheduler: scheduler)
    let second = ScopeResolver(scope: scope, name: "second", scheduler: scheduler)
    #expect(second.value(\.done) == false)
    #expect(throws: Never.self) { try first.write(\.done, true) }
    #expect(done.writtenValues == [true])
    #expect(second.value(\.done) == true)
  }

  @Test func childScopesAreKeptUntilTheirConfigurationChanges() {
    var made: [Int] = []
    let scope = ListScope(
      count: .constant(2),
      item: ConfiguredConnection { id in
        made.append(id)
        let item = ItemScope(title: .constant("item \(id)"), done: .initial(false))
        return ConnectionSource(read: { item }, subscribe: { _ in .none })
      })
    let resolver = ScopeResolver(scope: scope, name: "ListScope", scheduler: scheduler)
    let slot = ScopeSlot(parent: resolver, keyPath: \.item) { "item \($0)" }
    let first = slot.resolve(1)
    #expect(slot.resolve(1) === first)
    #expect(first.value(\.title) == "item 1")
    let second = slot.resolve(2)
    #expect(second !== first)
    #expect(first.isCancelled)
    #expect(second.value(\.title) == "item 2")
    #expect(made == [1, 2])
  }

  @Test func aParentChangeReachesItsChildren() {
    let items = RecordingSource(ItemScope(title: .constant("old"), done: .initial(false)))
    let scope = ListScope(count: .constant(1), item: ConfiguredConnection { _ in items.source })
    let resolver = ScopeResolver(scope: scope, name: "ListScope", scheduler: scheduler)
    var heard = 0
    resolver.onChange = { heard += 1 }
    let child = resolver.child(\.item, configuration: 1, name: "item")
    #expect(child.value(\.title) == "old")
    items.change(to: ItemScope(title: .constant("new"), done: .initial(true)))
    #expect(child.value(\.title) == "new")
    #expect(child.value(\.done) == true)
    #expect(heard >= 1)

    // Replacing the parent's scope re-derives the child from the new one.
    let replacement = RecordingSource(ItemScope(title: .constant("from a new container"), done: .initial(false)))
    resolver.replaceScope(ListScope(count: .constant(1), item: ConfiguredConnection { _ in replacement.source }))
    #expect(child.value(\.title) == "from a new container")
  }

  @Test func cancellingStopsEverySubscriptionAndDeliversNothing() {
    let count = RecordingSource(1)
    let title = RecordingSource("a")
    let scope = ListScope(
      count: count.connection,
      item: ConfiguredConnection { _ in
        let item = ItemScope(title: title.connection, done: .initial(false))
        return ConnectionSource(read: { item }, subscribe: { _ in .none })
      })
    let resolver = ScopeResolver(scope: scope, name: "ListScope", scheduler: scheduler)
    var heard = 0
    resolver.onChange = { heard += 1 }
    _ = resolver.value(\.count)
    _ = resolver.child(\.item, configuration: 1, name: "item").value(\.title)
    resolver.cancel()
    #expect(count.cancellations == 1)
    #expect(title.cancellations == 1)
    count.change(to: 2)
    title.change(to: "b")
    #expect(heard == 0)
  }

  @Test func observedPropertiesArriveAfterTheChange() {
    let counter = Counter()
    struct CounterScope { let value: Connection<Int> }
    let resolver = ScopeResolver(
      scope: CounterScope(value: .observation(counter, \.value)), name: "counter", scheduler: scheduler)
    #expect(resolver.value(\.value) == 0)
    counter.value = 5
    scheduler.flush()
    #expect(resolver.value(\.value) == 5)
    counter.value = 6
    scheduler.flush()
    #expect(resolver.value(\.value) == 6)
  }

  @Test func initialValuesAreLocalAndWritable() throws {
    struct Scope { let on: WritableConnection<Bool> }
    let resolver = ScopeResolver(scope: Scope(on: .initial(false)), name: "preview", scheduler: scheduler)
    try resolver.write(\.on, true)
    #expect(resolver.value(\.on))
    let other = ScopeResolver(scope: Scope(on: .initial(false)), name: "other preview", scheduler: scheduler)
    #expect(other.value(\.on) == false)
  }

  @Test func asyncSequencesDeliverTheirElements() async {
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    struct Scope { let value: Connection<Int> }
    let resolver = ScopeResolver(
      scope: Scope(value: .sequence(stream, initial: 0)), name: "stream", scheduler: scheduler)
    #expect(resolver.value(\.value) == 0)
    continuation.yield(7)
    for _ in 0..<100 where resolver.value(\.value) != 7 { await Task.yield() }
    #expect(resolver.value(\.value) == 7)
    resolver.cancel()
    continuation.finish()
  }

  @Test func theTreeNamesWhatWasResolved() {
    let scope = ItemScope(title: .constant("Milk"), done: .initial(false))
    let resolver = ScopeResolver(scope: scope, name: "ItemScope", scheduler: scheduler)
    _ = resolver.value(\.title)
    _ = resolver.value(\.done)
    #expect(
      resolver.tree() == ["ItemScope", "  title = Milk  [constant]", "  done = false  [initial value, writable]"])
  }
}
