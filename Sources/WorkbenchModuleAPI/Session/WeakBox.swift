/// A weak reference, for a state capture that must not keep its service alive.
@MainActor
package final class WeakBox<Value: AnyObject> {
  package weak var value: Value?
  package init(_ value: Value? = nil) { self.value = value }
}
