import WorkbenchCore
import WorkbenchModuleAPI

/// docs/protocol.schema.json, made from the message declarations (`HostMessage`,
/// `ModuleMessage` and the structures they carry): the schema and the code cannot say different
/// things. `workbench reference --protocol-schema` prints it; a test holds the file to it.
public enum ProtocolSchema {
  /// The structures messages carry, each a definition of its own.
  static let structures: [any WireStructure.Type] = [
    WireTimer.self, WireUpdate.self, WireOpenedWindow.self, WireFact.self, WireFactsRequest.self, WireCommit.self,
    WireManifest.self, WireArgument.self, WireCommandSpec.self, WireScreen.self, WireRecordField.self, WireSample.self,
    WireDiagram.self, WireDiagramEdge.self,
  ]

  /// How many messages and structures the schema defines.
  public static var definitionCount: Int { HostMessage.kinds.count + ModuleMessage.kinds.count + structures.count }

  /// The schema, as JSON Schema (draft 7).
  public static var document: FrameValue {
    var definitions: [(key: String, value: FrameValue)] = []
    definitions.append(
      (
        "hostMessage",
        ["oneOf": .list(HostMessage.kinds.map { ["$ref": .string("#/definitions/\($0.type)")] })]
      ))
    definitions.append(
      (
        "moduleMessage",
        ["oneOf": .list(ModuleMessage.kinds.map { ["$ref": .string("#/definitions/\($0.type)")] })]
      ))
    for kind in HostMessage.kinds {
      let required = HostMessage.namingSessions.contains(kind.type) ? ["session"] : []
      definitions.append(
        (kind.type, definition(of: kind.structure, summary: kind.summary, type: kind.type, alsoRequired: required)))
    }
    for kind in ModuleMessage.kinds {
      definitions.append((kind.type, definition(of: kind.structure, summary: kind.summary, type: kind.type)))
    }
    for structure in structures {
      definitions.append((structure.definitionName, definition(of: structure, summary: structure.summary, type: nil)))
    }
    return [
      "$schema": "http://json-schema.org/draft-07/schema#",
      "title": "workbench module protocol, versions 1 and 2",
      "description":
        "Every message between the host and a module process (docs/protocol.md). A message is one JSON object, preceded by its length as a 4-byte big-endian integer. `hostMessage` is what the host sends; `moduleMessage` what a module sends. Both sides ignore fields they do not know. Made from the declarations in Sources/WorkbenchModuleProtocol/Messages: `workbench reference --protocol-schema`.",
      "definitions": .object(FrameObject(members: definitions)),
    ]
  }

  /// The file's text.
  public static var text: String { document.prettyJSONText + "\n" }

  /// A structure's definition: its fields, those it must have, and no others (a reader ignores
  /// fields it does not know, but a sender that sends one has misspelt something).
  static func definition(
    of structure: any WireStructure.Type, summary: String, type: String?, alsoRequired: [String] = []
  ) -> FrameValue {
    var properties: [(key: String, value: FrameValue)] = []
    var required: [FrameValue] = []
    if let type {
      properties.append(("type", ["enum": [.string(type)]]))
      required.append("type")
    }
    for field in structure.fieldDescriptions {
      var schema = Self.schema(of: field.type)
      if !field.description.isEmpty, case .object(var object) = schema {
        object["description"] = .string(field.description)
        schema = .object(object)
      }
      properties.append((field.name, schema))
      if field.required || alsoRequired.contains(field.name) { required.append(.string(field.name)) }
    }
    return [
      "description": .string(summary), "type": "object", "required": .list(required),
      "properties": .object(FrameObject(members: properties)), "additionalProperties": false,
    ]
  }

  static func schema(of type: WireType) -> FrameValue {
    switch type {
    case .string: return ["type": "string"]
    case .integer(let minimum, let maximum):
      var object = FrameObject(["type": "integer"])
      if let minimum { object["minimum"] = .integer(minimum) }
      if let maximum { object["maximum"] = .integer(maximum) }
      return .object(object)
    case .boolean: return ["type": "boolean"]
    case .anyValue: return .object(FrameObject())
    case .anyObject: return ["type": "object"]
    case .map(let values): return ["type": "object", "additionalProperties": schema(of: values)]
    case .list(let items, let maximum):
      var object = FrameObject(["type": "array", "items": schema(of: items)])
      if let maximum { object["maxItems"] = .integer(maximum) }
      return .object(object)
    case .structure(let name): return ["$ref": .string("#/definitions/\(name)")]
    case .choice(let words): return ["enum": .list(words.map(FrameValue.string))]
    case .nullable(let inner):
      let schema = schema(of: inner)
      if case .object(var object) = schema, let simple = object["type"]?.stringValue {
        object["type"] = [.string(simple), "null"]
        return .object(object)
      }
      return ["oneOf": [schema, ["type": "null"]]]
    }
  }
}

extension WireStructure {
  /// The fields as the schema describes them.
  static var fieldDescriptions: [(name: String, type: WireType, required: Bool, description: String)] {
    fields.map { ($0.name, $0.type, $0.required, $0.description) }
  }
}
