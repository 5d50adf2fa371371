import Testing
import WorkbenchLanguageServer
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `workbench lsp` in a real editor: Debian's Neovim, headless, with its built-in LSP client:
/// diagnostics, completion, hover, go to definition, the outline, runs and exploring.
/// CI installs `neovim` and sets WORKBENCH_REQUIRE_NEOVIM, so there the test cannot be skipped;
/// elsewhere it runs where a Neovim is installed.
struct LanguageServerTests {
  static let neovim: String? = ["/usr/bin/nvim", "/usr/local/bin/nvim"].first { access($0, X_OK) == 0 }
  static let required = getenv("WORKBENCH_REQUIRE_NEOVIM") != nil

  /// The editor's side, in Lua for Neovim 0.7: start the server, open the scenario, wait for
  /// its diagnostics, ask for completion at two places, fix the misspelt command, and write
  /// what it saw to OUTPUT.
  static let script = """
    local out = {}
    local function log(text) table.insert(out, text) end
    local client = vim.lsp.start_client({ name = "workbench", cmd = { os.getenv("WORKBENCH"), "lsp" },
      root_dir = os.getenv("FOLDER") })
    vim.cmd("edit " .. os.getenv("FILE"))
    local buffer = vim.api.nvim_get_current_buf()
    vim.lsp.buf_attach_client(buffer, client)
    vim.wait(10000, function() return #vim.diagnostic.get(buffer) >= 2 end, 20)
    for _, d in ipairs(vim.diagnostic.get(buffer)) do
      log(string.format("diagnostic %d:%d-%d:%d %s", d.lnum, d.col, d.end_lnum, d.end_col, d.message))
    end
    local function complete(line, character)
      local params = { textDocument = { uri = vim.uri_from_bufnr(buffer) },
        position = { line = line, character = character } }
      local replies = vim.lsp.buf_request_sync(buffer, "textDocument/completion", params, 10000) or {}
      local labels = {}
      for _, reply in pairs(replies) do
        for _, item in ipairs((reply.result or {}).items or {}) do table.insert(labels, item.label) end
      end
      return table.concat(labels, ",")
    end
    log("commands " .. complete(4, 12))
    log("fields " .. complete(6, 26))
    vim.api.nvim_buf_set_text(buffer, 4, 10, 4, 16, { "select" })
    vim.wait(10000, function() return #vim.diagnostic.get(buffer) == 1 end, 20)
    for _, d in ipairs(vim.diagnostic.get(buffer)) do log(string.format("after the fix %d:%d", d.lnum, d.col)) end
    local function ask(method, line, character)
      local params = { textDocument = { uri = vim.uri_from_bufnr(buffer) },
        position = { line = line, character = character } }
      for _, reply in pairs(vim.lsp.buf_request_sync(buffer, method, params, 10000) or {}) do
        if reply.result then return reply.result end
      end
      return nil
    end
    local hover = ask("textDocument/hover", 4, 12)
    log("hover " .. ((hover or {}).contents or {}).value:gsub("\\n", " | "))
    local place = ask("textDocument/definition", 4, 5)
    if place and place[1] then place = place[1] end
    log(string.format("definition %d:%d", place.range.start.line, place.range.start.character))
    local params = { textDocument = { uri = vim.uri_from_bufnr(buffer) }, position = { line = 2, character = 3 },
      context = { includeDeclaration = true } }
    for _, reply in pairs(vim.lsp.buf_request_sync(buffer, "textDocument/references", params, 10000) or {}) do
      local places = {}
      for _, place in ipairs(reply.result or {}) do
        table.insert(places, place.range.start.line .. ":" .. place.range.start.character)
      end
      log("references " .. table.concat(places, " "))
    end
    local symbols = ask("textDocument/documentSymbol", 0, 0) or {}
    for _, symbol in ipairs(symbols) do
      log("symbol " .. symbol.name .. " with " .. #(symbol.children or {}) .. " steps")
    end
    -- Make the expectation valid but wrong, run the scenario through its lens, and see the
    -- failure come back on the failing step.
    vim.api.nvim_buf_set_lines(buffer, 6, 7, false, { "      left: {selected: 5}" })
    vim.wait(10000, function() return #vim.diagnostic.get(buffer) == 0 end, 20)
    local lenses = {}
    for _, reply in pairs(vim.lsp.buf_request_sync(buffer, "textDocument/codeLens",
      { textDocument = { uri = vim.uri_from_bufnr(buffer) } }, 10000) or {}) do lenses = reply.result or lenses end
    log("lenses " .. #lenses .. " " .. ((lenses[1] or {}).command or {}).title)
    local ran = vim.lsp.buf_request_sync(buffer, "workspace/executeCommand", lenses[1].command, 10000) or {}
    for _, reply in pairs(ran) do log("ran " .. tostring(reply.result)) end
    vim.wait(10000, function() return #vim.diagnostic.get(buffer) == 1 end, 20)
    for _, d in ipairs(vim.diagnostic.get(buffer)) do
      log(string.format("failure %d:%d %s", d.lnum, d.col, (d.message:gsub("\\n", " | "))))
    end
    -- "Run to this step" on the first step: the windows as it left them, on that step.
    local range = { start = { line = 4, character = 4 }, ["end"] = { line = 4, character = 4 } }
    local actions = {}
    for _, reply in pairs(vim.lsp.buf_request_sync(buffer, "textDocument/codeAction",
      { textDocument = { uri = vim.uri_from_bufnr(buffer) }, range = range, context = { diagnostics = {} } },
      10000) or {}) do actions = reply.result or actions end
    log("action " .. ((actions[1] or {}).title or "none"))
    if actions[1] then
      vim.lsp.buf_request_sync(buffer, "workspace/executeCommand", actions[1].command, 10000)
      vim.wait(10000, function()
        return #vim.diagnostic.get(buffer, { severity = vim.diagnostic.severity.INFO }) == 1 end, 20)
      for _, d in ipairs(vim.diagnostic.get(buffer, { severity = vim.diagnostic.severity.INFO })) do
        log(string.format("ran to %d:%d %s", d.lnum, d.col, (d.message:gsub("\\n", " | "))))
      end
    end
    -- The second action explores the file's screens in a worker; its answer comes when it is done.
    log("explore action " .. ((actions[2] or {}).title or "none"))
    if actions[2] then
      for _, reply in pairs(vim.lsp.buf_request_sync(buffer, "workspace/executeCommand", actions[2].command,
        60000) or {}) do log("explored " .. tostring(reply.result)) end
    end
    -- A field inside a field, typed at the end of the file: from the catalog's typed frame.
    local last = vim.api.nvim_buf_line_count(buffer)
    vim.api.nvim_buf_set_lines(buffer, last, last, false, { "  - expect:", "      left: {viewport: {an" })
    log("nested " .. complete(last + 1, 26))
    -- Finished, and the cursor on it: what that field of the viewport means.
    vim.api.nvim_buf_set_lines(buffer, last + 1, last + 2, false, { "      left: {viewport: {anchor: 4}}" })
    local inner = ask("textDocument/hover", last + 1, 26)
    log("nested hover " .. (((inner or {}).contents or {}).value or "none"))
    -- `- do: @le`: the window offered, and taken as the editor takes an item (its text edit).
    local after = vim.api.nvim_buf_line_count(buffer)
    vim.api.nvim_buf_set_lines(buffer, after, after, false, { "  - do: @le" })
    local offered = ask("textDocument/completion", after, 11) or {}
    for _, item in ipairs(offered.items or offered) do
      if item.label == "@left" and item.textEdit then
        vim.lsp.util.apply_text_edits({ item.textEdit }, buffer, "utf-16")
        log("window step " .. vim.api.nvim_buf_get_lines(buffer, after, after + 1, false)[1])
      end
    end
    vim.fn.writefile(out, os.getenv("OUTPUT"))
    vim.lsp.stop_client(client)
    vim.cmd("qa!")
    """

  @Test(.enabled(if: neovim != nil || required, "no Neovim is installed (CI sets WORKBENCH_REQUIRE_NEOVIM)"))
  func diagnosticsAndCompletionReachNeovim() throws {
    let neovim = try #require(Self.neovim, "WORKBENCH_REQUIRE_NEOVIM is set, and no Neovim was found")
    let folder = makeTemporaryFolder()
    let file = folder + "/shelf.yaml"
    writeTextFile(
      """
      scenario: A misspelt command and a misspelt field
      windows:
        left: catalog library
      steps:
        - left: selcet 4
        - expect:
            left: {selcted: 4, q}
      """, to: file)
    writeTextFile(Self.script, to: folder + "/editor.lua")
    let output = folder + "/seen.txt"
    let result = ChildProcess.run(
      neovim, ["--headless", "--clean", "-c", "luafile \(folder)/editor.lua"], input: [],
      environment: ChildProcess.environment([
        "WORKBENCH": ChildProcess.workbenchPath, "FOLDER": folder, "FILE": file, "OUTPUT": output,
        "HOME": folder, "XDG_STATE_HOME": folder + "/state", "XDG_DATA_HOME": folder + "/data",
      ]))
    let seen = try #require(readTextFile(output), "Neovim wrote nothing: \(result.stdout)\(result.stderr)")
    let lines = seen.split(separator: "\n").map(String.init)
    // Both problems, each at the word it is about (0-based lines, UTF-16 columns).
    #expect(lines.contains("diagnostic 4:10-4:16 unknown command 'selcet'. Did you mean 'select'?"), "\(seen)")
    #expect(
      lines.contains { $0.hasPrefix("diagnostic 6:13-6:20 left shows catalog, whose frame has no field 'selcted'") },
      "\(seen)")
    // After `left: se` the catalog's commands and the host's; inside `{... q` the frame's fields.
    let commands = lines.first { $0.hasPrefix("commands ") }?.dropFirst("commands ".count).split(separator: ",") ?? []
    #expect(commands.contains("select") && commands.contains("settle") && !commands.contains("search"), "\(seen)")
    #expect(lines.contains("fields query"), "\(seen)")
    // The edit reached the server as an incremental change: one problem is left.
    #expect(lines.filter { $0.hasPrefix("after the fix") } == ["after the fix 6:13"], "\(seen)")
    // Hover on the command gives its help as `help select` does; the window's name leads to
    // where it is declared; the outline is the scenario and its steps.
    #expect(lines.contains { $0.hasPrefix("hover usage: select ID |  | Select a book by id") }, "\(seen)")
    #expect(lines.contains("definition 2:2"), "\(seen)")
    #expect(lines.contains("references 2:2 4:4 6:6"), "\(seen)")
    #expect(lines.contains("symbol A misspelt command and a misspelt field with 2 steps"), "\(seen)")
    // The lens runs the scenario as the editor has it; the failing expectation comes back as a
    // diagnostic on its step, with the diff.
    #expect(lines.contains("lenses 1 ▶ run"), "\(seen)")
    #expect(lines.contains { $0.hasPrefix("ran ✘ A misspelt command and a misspelt field") }, "\(seen)")
    #expect(
      lines.contains {
        $0.hasPrefix("failure 5:4 the frames do not match") && $0.contains("left.selected")
          && $0.contains("expected: 5")
      },
      "\(seen)")
    // "Run to this step" on the first step: the catalog as `select 4` left it, on that step.
    #expect(lines.contains("action Run to this step (1 of 2: left: select 4)"), "\(seen)")
    #expect(
      lines.contains {
        $0.hasPrefix("ran to 4:0 after step 1 of 2, the windows show: | [1 left] catalog library")
          && $0.contains("▸  4  Introduction to Algorithms") && $0.contains(":5 --shell")
      },
      "\(seen)")
    // Inside `viewport: {an`, the viewport's own fields, from the catalog's typed frame.
    #expect(lines.contains("nested anchor"), "\(seen)")
    // Hover on it, once written out: what it means in the viewport.
    #expect(
      lines.contains(
        "nested hover anchor: the id of the book the viewport is anchored to, or null (a field of viewport in catalog frames)"
      ), "\(seen)")
    // "Explore this file's screens": the catalog, 100 sessions in a worker, nothing found.
    #expect(
      lines.contains("explore action Explore this file's screens (workbench explore: 100 random sessions, seed 1)"),
      "\(seen)")
    #expect(lines.contains("explored ✔ explored 100 sessions (3000 steps) on catalog: nothing found"), "\(seen)")
    // After a bare `- do: @le`, taking `@left` makes the step the window's own (an unquoted `@`
    // cannot start a YAML value).
    #expect(lines.contains("window step   - left: "), "\(seen)")
  }
}
