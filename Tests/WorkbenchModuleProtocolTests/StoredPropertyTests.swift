import Testing
import WorkbenchCore
import WorkbenchModuleAPI

@testable import WorkbenchModuleProtocol

/// A message's field read and written at its byte offset is the field its key path names, for
/// every kind of stored property; one not stored inline goes through its key path.
struct StoredPropertyTests {
  struct Sample: Equatable {
    var flag = false
    var number = 0
    var text = "a"
    var optional: String? = nil
    var list: [String] = []
    var value: FrameValue = .null
    var computed: Int {
      get { number * 2 }
      set { number = newValue / 2 }
    }
  }

  @Test func eachStoredPropertyIsReachedAtItsOffset() {
    var sample = Sample()
    let flag = StoredProperty(\Sample.flag)
    let number = StoredProperty(\Sample.number)
    let text = StoredProperty(\Sample.text)
    let optional = StoredProperty(\Sample.optional)
    let list = StoredProperty(\Sample.list)
    let value = StoredProperty(\Sample.value)
    #expect(
      [flag.offset, number.offset, text.offset, optional.offset, list.offset, value.offset].allSatisfy { $0 != nil })
    flag.set(&sample, true)
    number.set(&sample, Int.max)
    text.set(&sample, String(repeating: "é", count: 40))
    optional.set(&sample, "set")
    list.set(&sample, ["x", "y"])
    value.set(&sample, ["k": [1, "two"]])
    #expect(
      sample
        == Sample(
          flag: true, number: Int.max, text: String(repeating: "é", count: 40), optional: "set", list: ["x", "y"],
          value: ["k": [1, "two"]]))
    #expect(flag.get(sample) == true && number.get(sample) == Int.max && list.get(sample) == ["x", "y"])
    #expect(text.get(sample) == sample.text && optional.get(sample) == "set" && value.get(sample) == sample.value)
    optional.set(&sample, nil)
    #expect(sample.optional == nil)
  }

  @Test func aComputedPropertyGoesThroughItsKeyPath() {
    var sample = Sample()
    let computed = StoredProperty(\Sample.computed)
    #expect(computed.offset == nil)
    computed.set(&sample, 84)
    #expect(sample.number == 42 && computed.get(sample) == 84)
  }
}

/// Every field of every message and structure the protocol declares is read and written at its
/// offset: one declared through a key path with none (a shared protocol's requirement, as the
/// requests' `id`, `session` and `now` once were) costs a run-time projection on every message
/// of every round trip.
struct MessageFieldLayoutTests {
  static func fieldsNotInline<Structure: WireStructure>(of structure: Structure.Type) -> [String] {
    Structure.fields.filter { !$0.isInline }.map { "\(Structure.definitionName).\($0.name)" }
  }

  @Test func everyFieldOfEveryMessageIsReachedAtItsOffset() {
    let all = HostMessage.kinds.map(\.structure) + ModuleMessage.kinds.map(\.structure) + ProtocolSchema.structures
    #expect(all.count == ProtocolSchema.definitionCount)
    var notInline: [String] = []
    for structure in all { notInline += Self.fieldsNotInline(of: structure) }
    // Computed on purpose: each turns the wire's shape into the Swift value (a kind with its
    // extra, a list or null), and is read once, in a module's hello.
    #expect(notInline == ["argumentSpec.kind", "commandSpec.screens"])
  }
}
