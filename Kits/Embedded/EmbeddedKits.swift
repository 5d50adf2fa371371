/// The kits of other languages, as their packages hold them (Kits/python, Kits/javascript):
/// what `workbench new-module --language ...` writes beside a new module.
public enum EmbeddedKits {
  /// The Python kit, `workbench_module.py`.
  public static var python: String { String(decoding: PackageResources.workbench_module_py, as: UTF8.self) }
  /// The JavaScript kit, `workbench-module.js`.
  public static var javascript: String {
    String(decoding: PackageResources.workbench_module_js, as: UTF8.self)
  }
  /// The JavaScript kit's `package.json`.
  public static var javascriptPackage: String { String(decoding: PackageResources.package_json, as: UTF8.self) }
}
