import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The floors a module's round trip is measured against (issue #49): a child answering over the
/// protocol's own framing (a 4-byte big-endian length, then the JSON) with a reply of the size a
/// real module sends, written in C without parsing anything, and in Python decoding the request
/// and encoding the reply as a kit must at least. Each runs beside the module it is the floor
/// of, on the same machine at the same moment, so a figure is a ratio that a slower day leaves
/// alone.
enum PipeFloor {
  /// What both C children start with: the headers, and reading or writing `n` bytes whole.
  static let cReadingAndWriting = """
    #include <stdio.h>
    #include <stdlib.h>
    #include <unistd.h>
    static int full(int fd, unsigned char *p, size_t n, int reading) {
      while (n > 0) {
        ssize_t k = reading ? read(fd, p, n) : write(fd, p, n);
        if (k <= 0) return 0;
        p += k; n -= (size_t)k;
      }
      return 1;
    }

    """

  /// The C child: reads a framed message, answers with the framed reply held in argv[1].
  static let cSource =
    cReadingAndWriting + """
      int main(int argc, char **argv) {
        FILE *f = fopen(argv[1], "rb");
        if (!f) return 2;
        static unsigned char reply[1 << 20], body[1 << 20];
        size_t size = fread(reply + 4, 1, sizeof reply - 4, f);
        fclose(f);
        reply[0] = size >> 24; reply[1] = (size >> 16) & 255; reply[2] = (size >> 8) & 255; reply[3] = size & 255;
        unsigned char head[4];
        while (full(0, head, 4, 1)) {
          size_t n = (size_t)head[0] << 24 | (size_t)head[1] << 16 | (size_t)head[2] << 8 | head[3];
          if (n > sizeof body || !full(0, body, n, 1)) return 1;
          if (!full(1, reply, size + 4, 0)) return 1;
        }
        return 0;
      }
      """

  /// The replaying child: sends the framed messages of the file `WORKBENCH_BENCH_REPLIES` names
  /// in order, the first (a module's hello) at once and each next one after a framed request,
  /// parsing nothing. With a module's recorded messages it is that module at no cost: what is
  /// left of a step is the host's own work and the pipes.
  static let replayerSource =
    cReadingAndWriting + """
      static size_t framed(const unsigned char *p) {
        return 4 + ((size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3]);
      }
      int main(void) {
        const char *path = getenv("WORKBENCH_BENCH_REPLIES");
        FILE *f = path ? fopen(path, "rb") : NULL;
        if (!f) return 2;
        static unsigned char replies[64 << 20], body[1 << 20];
        size_t size = fread(replies, 1, sizeof replies, f), at = 0;
        fclose(f);
        if (size < 4 || !full(1, replies, framed(replies), 0)) return 1;
        at = framed(replies);
        unsigned char head[4];
        while (at + 4 <= size && full(0, head, 4, 1)) {
          size_t n = framed(head) - 4;
          if (n > sizeof body || !full(0, body, n, 1)) return 1;
          if (!full(1, replies + at, framed(replies + at), 0)) return 1;
          at += framed(replies + at);
        }
        return 0;
      }
      """

  /// The Python child: decodes each request and encodes the reply held in argv[1].
  static let pythonSource = """
    import json, sys
    reply = json.load(open(sys.argv[1]))
    read, write = sys.stdin.buffer.read, sys.stdout.buffer
    while True:
        head = read(4)
        if len(head) < 4:
            break
        request = json.loads(read(int.from_bytes(head, "big")))
        body = json.dumps(reply, separators=(",", ":")).encode()
        write.write(len(body).to_bytes(4, "big") + body)
        write.flush()
    """

  /// Which processors this process may run on, as the kernel lists them (`0`, `0-1`).
  static var allowedProcessors: String? {
    guard let bytes = try? FileSystem.read("/proc/self/status") else { return nil }
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n")
    where line.hasPrefix("Cpus_allowed_list:") {
      return String(line.dropFirst("Cpus_allowed_list:".count).filter { $0 != " " && $0 != "\t" })
    }
    return nil
  }

  /// Round trips of `request` to a child started as `command`, which answers each with its
  /// reply, in seconds.
  static func roundTrips(_ command: [String], request: [UInt8], iterations: Int) -> [Double]? {
    guard
      let child = try? SpawnedProcess(
        command[0], arguments: Array(command.dropFirst()), input: .pipe, output: .pipe, error: .inherited,
        searchingPath: true)
    else { return nil }
    defer {
      child.closeInput()
      child.signal(SIGKILL)
      _ = child.wait()
    }
    let length = UInt32(request.count)
    let framed =
      [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)] + request
    var samples: [Double] = []
    var buffer: [UInt8] = []
    for index in 0..<(iterations + 20) {
      let start = now()
      guard child.write(framed) else { return nil }
      // One framed reply, whole.
      while true {
        if buffer.count >= 4 {
          let size = Int(buffer[0]) << 24 | Int(buffer[1]) << 16 | Int(buffer[2]) << 8 | Int(buffer[3])
          if buffer.count >= 4 + size {
            buffer.removeFirst(4 + size)
            break
          }
        }
        guard let more = child.readOutput() else { return nil }
        buffer += more
      }
      // The first few warm the child up.
      if index >= 20 { samples.append(now() - start) }
    }
    return samples
  }

  /// The C child built in `folder`, or `nil` when there is no C compiler.
  static func buildC(in folder: String) -> String? {
    compileC(cSource, to: folder + "/floor")
  }

}
