/// A stored property of a value, read and written at its byte offset (`MemoryLayout.offset(of:)`)
/// rather than through its key path, whose projection looks up metadata at run time. Protocol
/// messages and typed frames are read and written field by field, every round trip and every
/// frame, through these. A property with no offset (a computed one, or one not stored inline)
/// goes through the key path.
public struct StoredProperty<Root, Value>: Sendable {
  /// The property's key path.
  public let path: WritableKeyPath<Root, Value> & Sendable
  /// Its offset in `Root`'s storage, or `nil` when it has none.
  public let offset: Int?

  /// The property `path` names.
  public init(_ path: WritableKeyPath<Root, Value> & Sendable) {
    self.path = path
    offset = MemoryLayout<Root>.offset(of: path)
  }

  /// The property's value in `root`.
  @inlinable
  public func get(_ root: Root) -> Value {
    guard let offset else { return root[keyPath: path] }
    return withUnsafePointer(to: root) { pointer in
      UnsafeRawPointer(pointer).advanced(by: offset).assumingMemoryBound(to: Value.self).pointee
    }
  }

  /// Sets the property in `root` to `value`.
  @inlinable
  public func set(_ root: inout Root, _ value: Value) {
    guard let offset else {
      root[keyPath: path] = value
      return
    }
    withUnsafeMutablePointer(to: &root) { pointer in
      UnsafeMutableRawPointer(pointer).advanced(by: offset).assumingMemoryBound(to: Value.self).pointee = value
    }
  }
}
