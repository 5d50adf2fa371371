import Observation

extension ConfiguredConnection where Configuration == EmptyConfiguration {
  /// A value that never changes.
  package static func constant(_ value: Value) -> Connection<Value> {
    Connection(kind: "constant") { _ in ConnectionSource(read: { value }, subscribe: { _ in .none }) }
  }

  /// A value from a plain callback API: `read` gives the value, `subscribe` calls back on
  /// changes until its cancellation runs.
  package static func callback(
    read: @escaping () -> Value, subscribe: @escaping (ChangeSink) -> Cancellation
  ) -> Connection<Value> {
    Connection(kind: "callback") { _ in ConnectionSource(read: read, subscribe: subscribe) }
  }

  /// A property of an `@Observable` object. Changes are noticed with Observation and
  /// delivered after the change is applied, when the session's pending notifications flush.
  package static func observation<Object: Observable & AnyObject>(_ object: Object, _ keyPath: KeyPath<Object, Value>)
    -> Connection<Value>
  {
    Connection(kind: "observation") { _ in
      ConnectionSource(
        read: { object[keyPath: keyPath] },
        subscribe: { onChange in ObservationSubscription.start(object, keyPath, onChange) })
    }
  }

  /// Values from an `AsyncSequence`, starting from `initial`; each element replaces the value.
  package static func sequence<Sequence: AsyncSequence & Sendable>(_ sequence: Sequence, initial: Value)
    -> Connection<Value> where Sequence.Element == Value, Value: Sendable
  {
    Connection(kind: "async sequence") { _ in
      let box = ValueBox(initial)
      return ConnectionSource(
        read: { box.value },
        subscribe: { onChange in
          let task = Task { @MainActor in
            do {
              for try await element in sequence {
                box.value = element
                onChange()
              }
            } catch {}
          }
          return Cancellation { task.cancel() }
        })
    }
  }
}

extension WritableConnection {
  /// A value held locally, starting at `value`, that writes change (a preview's toggle).
  package static func initial(_ value: Value) -> WritableConnection<Value> {
    WritableConnection(kind: "initial value") {
      let box = ValueBox(value)
      let observers = ObserverList()
      return ConnectionSource(
        read: { box.value },
        subscribe: { onChange in observers.add(onChange) },
        write: { newValue throws(CommandError) in
          box.value = newValue
          observers.notifyAll()
        })
    }
  }

  /// A writable property of an `@Observable` object; `validate` may refuse a value with a
  /// message before it is written.
  package static func observation<Object: Observable & AnyObject>(
    _ object: Object, _ keyPath: ReferenceWritableKeyPath<Object, Value>,
    validate: @escaping (Value) throws(CommandError) -> Void = { _ throws(CommandError) in }
  ) -> WritableConnection<Value> {
    WritableConnection(kind: "observation") {
      ConnectionSource(
        read: { object[keyPath: keyPath] },
        subscribe: { onChange in ObservationSubscription.start(object, keyPath, onChange) },
        write: { value throws(CommandError) in
          try validate(value)
          object[keyPath: keyPath] = value
        })
    }
  }

  /// A writable value from a plain callback API.
  package static func callback(
    read: @escaping () -> Value, subscribe: @escaping (ChangeSink) -> Cancellation,
    write: @escaping (Value) throws(CommandError) -> Void
  ) -> WritableConnection<Value> {
    WritableConnection(kind: "callback") { ConnectionSource(read: read, subscribe: subscribe, write: write) }
  }
}

/// A mutable box for a connection's local value.
@MainActor
package final class ValueBox<Value> {
  package var value: Value
  package init(_ value: Value) { self.value = value }
}

/// Observers of a local value; each can be removed by its cancellation.
@MainActor
package final class ObserverList {
  private var observers: [Int: @MainActor () -> Void] = [:]
  private var next = 0

  /// An empty list.
  package init() {}

  /// Adds an observer until the returned cancellation runs.
  package func add(_ observer: ChangeSink) -> Cancellation { add(observer.action) }

  /// Adds an observer closure until the returned cancellation runs.
  package func add(_ observer: @escaping @MainActor () -> Void) -> Cancellation {
    let key = next
    next += 1
    observers[key] = observer
    return Cancellation { [weak self] in self?.observers[key] = nil }
  }

  /// Calls every observer.
  package func notifyAll() {
    for key in observers.keys.sorted() { observers[key]?() }
  }

  /// How many observers there are.
  package var count: Int { observers.count }
}

/// Re-registers Observation tracking after each change (its `onChange` fires once, before the
/// change is applied) and delivers the change through the session's scheduler, after it is
/// applied.
@MainActor
package enum ObservationSubscription {
  /// Calls `onChange` after each change of `object[keyPath]`, until cancelled.
  package static func start<Object: AnyObject, Value>(
    _ object: Object, _ keyPath: KeyPath<Object, Value>, _ onChange: ChangeSink
  ) -> Cancellation {
    let tracker = ObservationTracker(object: object, keyPath: keyPath, onChange: onChange)
    tracker.track()
    // The cancellation holds the tracker: it lives as long as the subscription is kept.
    return Cancellation { tracker.cancel() }
  }
}

@MainActor
package final class ObservationTracker<Object: AnyObject, Value> {
  /// Weak: the object's registrar holds the tracking closure, which holds this tracker; a
  /// strong reference back would keep the object, and its registrations, alive for ever.
  weak var object: Object?
  package let keyPath: KeyPath<Object, Value>
  /// Dropped when cancelled: the object's registrar keeps the tracking closure (so this
  /// tracker) until the next change, and the sink leads back to whoever reads the object.
  package var onChange: ChangeSink?
  package var cancelled = false

  package init(object: Object, keyPath: KeyPath<Object, Value>, onChange: ChangeSink) {
    self.object = object
    self.keyPath = keyPath
    self.onChange = onChange
  }

  package func cancel() {
    cancelled = true
    onChange = nil
  }

  package func track() {
    guard !cancelled, let object, onChange != nil else { return }
    withObservationTracking {
      _ = object[keyPath: keyPath]
    } onChange: { [weak self] in
      // Observation calls this before the change lands: the scheduler reads after it. (The
      // sink is read through `self`, not captured, so cancelling lets it go.) Weak: the
      // object's registrar keeps this closure until the next change, and a tracker it kept
      // would keep the sink, the session's scheduler and through them the object itself, a
      // cycle no one breaks when a session ends without closing its windows (LeakSanitizer
      // found it). The subscriber's `Cancellation` is what keeps the tracker.
      MainActor.assumeIsolated {
        guard let self else { return }
        self.onChange?.scheduler.enqueue { [self] in
          guard !self.cancelled, let onChange = self.onChange else { return }
          self.track()
          onChange()
        }
      }
    }
  }
}
