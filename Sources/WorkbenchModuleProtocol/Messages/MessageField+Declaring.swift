import WorkbenchCore
import WorkbenchModuleAPI

// MARK: Declaring fields

extension MessageField {
  /// Text that must be there.
  public static func text(
    _ name: String, _ path: WritableKeyPath<Message, String> & Sendable, _ description: String = ""
  ) -> Self {
    let property = StoredProperty(path)
    return Self(
      name, .string, required: true, description,
      property: property,
      read: { message, value throws(FieldProblem) in
        guard case .string(let text) = value else { throw FieldProblem() }
        property.set(&message, text)
      }, write: { .string(property.get($0)) },
      appendValue: { message, output in
        FrameValue.appendJSONString(property.get(message), to: &output)
        return true
      },
      readJSON: { message, cursor, _ in
        guard cursor.isAt(UInt8(ascii: "\"")), let text = try? cursor.string() else { return false }
        property.set(&message, text)
        return true
      })
  }

  /// Text that may be left out.
  public static func text(
    _ name: String, _ path: WritableKeyPath<Message, String?> & Sendable, _ description: String = ""
  ) -> Self {
    let property = StoredProperty(path)
    return Self(
      name, .string, required: false, description,
      property: property,
      read: { message, value throws(FieldProblem) in
        guard case .string(let text) = value else { throw FieldProblem() }
        property.set(&message, text)
      }, write: { property.get($0).map(FrameValue.string) },
      appendValue: { message, output in
        guard let text = property.get(message) else { return false }
        FrameValue.appendJSONString(text, to: &output)
        return true
      },
      readJSON: { message, cursor, _ in
        guard cursor.isAt(UInt8(ascii: "\"")), let text = try? cursor.string() else { return false }
        property.set(&message, text)
        return true
      })
  }

  /// Text or null, always written (`null` for `nil`); `required` says whether it may be left out.
  public static func textOrNull(
    _ name: String, _ path: WritableKeyPath<Message, String?> & Sendable, required: Bool = true,
    _ description: String = ""
  ) -> Self {
    let property = StoredProperty(path)
    return Self(
      name, .nullable(.string), required: required, description,
      property: property,
      read: { message, value throws(FieldProblem) in
        switch value {
        case .string(let text): property.set(&message, text)
        case .null: property.set(&message, nil)
        default: throw FieldProblem()
        }
      }, write: { FrameValue(property.get($0)) },
      appendValue: { message, output in
        if let text = property.get(message) {
          FrameValue.appendJSONString(text, to: &output)
        } else {
          output += "null".utf8
        }
        return true
      },
      readJSON: { message, cursor, depth in
        guard cursor.isAt(UInt8(ascii: "\"")) else {
          guard case .null? = try? cursor.value(depth: depth) else { return false }
          property.set(&message, nil)
          return true
        }
        guard let text = try? cursor.string() else { return false }
        property.set(&message, text)
        return true
      })
  }

  /// A whole number that must be there.
  public static func integer(
    _ name: String, _ path: WritableKeyPath<Message, Int> & Sendable, minimum: Int? = nil, maximum: Int? = nil,
    _ description: String = ""
  ) -> Self {
    let property = StoredProperty(path)
    let type = WireType.integer(minimum: minimum, maximum: maximum)
    return Self(
      name, type, required: true, description,
      property: property,
      read: { message, value throws(FieldProblem) in
        guard case .integer(let number) = value, type.admits(value) else { throw FieldProblem() }
        property.set(&message, number)
      }, write: { .integer(property.get($0)) },
      appendValue: { message, output in
        output += String(property.get(message)).utf8
        return true
      })
  }

  /// A whole number that may be left out.
  public static func integer(
    _ name: String, _ path: WritableKeyPath<Message, Int?> & Sendable, minimum: Int? = nil, maximum: Int? = nil,
    _ description: String = ""
  ) -> Self {
    let property = StoredProperty(path)
    let type = WireType.integer(minimum: minimum, maximum: maximum)
    return Self(
      name, type, required: false, description,
      property: property,
      read: { message, value throws(FieldProblem) in
        guard case .integer(let number) = value, type.admits(value) else { throw FieldProblem() }
        property.set(&message, number)
      }, write: { property.get($0).map(FrameValue.integer) },
      appendValue: { message, output in
        guard let number = property.get(message) else { return false }
        output += String(number).utf8
        return true
      })
  }

  /// True or false, left out when `nil`.
  public static func boolean(
    _ name: String, _ path: WritableKeyPath<Message, Bool?> & Sendable, _ description: String = ""
  ) -> Self {
    let property = StoredProperty(path)
    return Self(
      name, .boolean, required: false, description,
      property: property,
      read: { message, value throws(FieldProblem) in
        guard case .bool(let flag) = value else { throw FieldProblem() }
        property.set(&message, flag)
      }, write: { property.get($0).map(FrameValue.bool) })
  }

  /// Any JSON value (or an object, with `type: .anyObject`), that must be there.
  public static func value(
    _ name: String, _ path: WritableKeyPath<Message, FrameValue> & Sendable, type: WireType = .anyValue,
    _ description: String = ""
  ) -> Self {
    let property = StoredProperty(path)
    return Self(
      name, type, required: true, description,
      property: property,
      read: { message, value throws(FieldProblem) in
        guard type.admits(value) else { throw FieldProblem() }
        property.set(&message, value)
      }, write: { property.get($0) },
      appendValue: { message, output in
        property.get(message).appendJSON(to: &output)
        return true
      })
  }

  /// Any JSON value (or one of `type`), that may be left out.
  public static func value(
    _ name: String, _ path: WritableKeyPath<Message, FrameValue?> & Sendable, type: WireType = .anyValue,
    _ description: String = ""
  ) -> Self {
    let property = StoredProperty(path)
    return Self(
      name, type, required: false, description,
      property: property,
      read: { message, value throws(FieldProblem) in
        guard type.admits(value) else { throw FieldProblem() }
        property.set(&message, value)
      }, write: { property.get($0) },
      appendValue: { message, output in
        guard let value = property.get(message) else { return false }
        value.appendJSON(to: &output)
        return true
      })
  }

  /// A list of texts.
  public static func texts(
    _ name: String, _ path: WritableKeyPath<Message, [String]?> & Sendable, _ description: String = "",
    expected: String? = nil
  ) -> Self {
    let property = StoredProperty(path)
    return Self(
      name, .list(.string), required: false, description, expected: expected,
      property: property,
      read: { message, value throws(FieldProblem) in
        guard case .list(let items) = value else { throw FieldProblem() }
        var texts: [String] = []
        texts.reserveCapacity(items.count)
        for item in items {
          guard case .string(let text) = item else { throw FieldProblem() }
          texts.append(text)
        }
        property.set(&message, texts)
      }, write: { property.get($0).map { .list($0.map(FrameValue.string)) } })
  }

  /// A list of texts that must be there.
  public static func texts(
    _ name: String, _ path: WritableKeyPath<Message, [String]> & Sendable, _ description: String = ""
  ) -> Self {
    let property = StoredProperty(path)
    return Self(
      name, .list(.string), required: true, description,
      property: property,
      read: { message, value throws(FieldProblem) in
        guard case .list(let items) = value else { throw FieldProblem() }
        var texts: [String] = []
        for item in items {
          guard case .string(let text) = item else { throw FieldProblem() }
          texts.append(text)
        }
        property.set(&message, texts)
      }, write: { .list(property.get($0).map(FrameValue.string)) })
  }

  /// A structure that may be left out.
  public static func structure<Structure: WireStructure>(
    _ name: String, _ path: WritableKeyPath<Message, Structure?> & Sendable, _ description: String = "",
    expected: String? = nil
  ) -> Self {
    let property = StoredProperty(path)
    return Self(
      name, .structure(Structure.definitionName), required: false, description, expected: expected,
      property: property,
      read: { message, value throws(FieldProblem) in
        do throws(WireProblems) {
          property.set(&message, try Structure(wire: value))
        } catch {
          throw FieldProblem(detail: expected == nil ? error.description : nil)
        }
      }, write: { property.get($0)?.wire },
      appendValue: { message, output in
        guard let structure = property.get(message) else { return false }
        structure.appendWire(to: &output)
        return true
      },
      readJSON: { message, cursor, depth in
        guard let structure = Structure.read(json: &cursor, depth: depth) else { return false }
        property.set(&message, structure)
        return true
      })
  }

  /// A structure that must be there.
  public static func structure<Structure: WireStructure>(
    _ name: String, _ path: WritableKeyPath<Message, Structure> & Sendable, _ description: String = ""
  ) -> Self {
    let property = StoredProperty(path)
    return Self(
      name, .structure(Structure.definitionName), required: true, description,
      property: property,
      read: { message, value throws(FieldProblem) in
        do throws(WireProblems) {
          property.set(&message, try Structure(wire: value))
        } catch {
          throw FieldProblem(detail: error.description)
        }
      }, write: { property.get($0).wire },
      appendValue: { message, output in
        property.get(message).appendWire(to: &output)
        return true
      },
      readJSON: { message, cursor, depth in
        guard let structure = Structure.read(json: &cursor, depth: depth) else { return false }
        property.set(&message, structure)
        return true
      })
  }

  /// A list of structures, that may be left out (at most `maximum`).
  public static func structures<Structure: WireStructure>(
    _ name: String, _ path: WritableKeyPath<Message, [Structure]?> & Sendable, maximum: Int? = nil,
    _ description: String = "", expected: String? = nil
  ) -> Self {
    let property = StoredProperty(path)
    return Self(
      name, .list(.structure(Structure.definitionName), maximumCount: maximum), required: false, description,
      expected: expected,
      property: property,
      read: { message, value throws(FieldProblem) in
        property.set(&message, try readStructures(value, maximum: maximum, expected: expected))
      }, write: { property.get($0).map { .list($0.map(\.wire)) } },
      appendValue: { message, output in
        guard let structures = property.get(message) else { return false }
        Structure.appendWire(structures, to: &output)
        return true
      },
      readJSON: { message, cursor, depth in
        guard let structures = Structure.readList(json: &cursor, depth: depth, maximum: maximum) else { return false }
        property.set(&message, structures)
        return true
      })
  }

  /// A list of structures that must be there (at most `maximum`).
  public static func structures<Structure: WireStructure>(
    _ name: String, _ path: WritableKeyPath<Message, [Structure]> & Sendable, maximum: Int? = nil,
    _ description: String = "", expected: String? = nil
  ) -> Self {
    let property = StoredProperty(path)
    return Self(
      name, .list(.structure(Structure.definitionName), maximumCount: maximum), required: true, description,
      expected: expected,
      property: property,
      read: { message, value throws(FieldProblem) in
        property.set(&message, try readStructures(value, maximum: maximum, expected: expected))
      }, write: { .list(property.get($0).map(\.wire)) },
      appendValue: { message, output in
        Structure.appendWire(property.get(message), to: &output)
        return true
      },
      readJSON: { message, cursor, depth in
        guard let structures = Structure.readList(json: &cursor, depth: depth, maximum: maximum) else { return false }
        property.set(&message, structures)
        return true
      })
  }

  /// Each item of a list read as a structure; the first that is not one says where.
  private static func readStructures<Structure: WireStructure>(
    _ value: FrameValue, maximum: Int?, expected: String?
  ) throws(FieldProblem) -> [Structure] {
    guard case .list(let items) = value, items.count <= (maximum ?? Int.max) else { throw FieldProblem() }
    var structures: [Structure] = []
    structures.reserveCapacity(items.count)
    for (index, item) in items.enumerated() {
      do throws(WireProblems) {
        structures.append(try Structure(wire: item))
      } catch {
        throw FieldProblem(detail: expected == nil ? "[\(index)]: \(error.description)" : nil)
      }
    }
    return structures
  }
}
