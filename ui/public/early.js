/* global window, performance */
// Asks Rust for what the first screen needs (the settings, what to show, its sessions) before
// the app's scripts are parsed, so the answers travel while they are. The app takes these
// promises once (`call` in src/api.ts); anywhere without Tauri this does nothing.
(function () {
  var tauri = window.__TAURI_INTERNALS__;
  if (!tauri) return;
  var early = {};
  ["startup", "get_settings"].forEach(function (cmd) {
    early[cmd] = tauri.invoke(cmd, {});
    // Handled here so a failure is not reported as unhandled; the taker still sees it.
    early[cmd].catch(function () {});
  });
  // The project's session list is on the first screen too: asked as soon as the project is
  // known, under the key `call` looks for (name, space, args as JSON).
  early.startup.then(function (startup) {
    if (startup.kind !== "project") return;
    var args = { root: startup.project.root };
    var listed = tauri.invoke("list_sessions", { args: args });
    listed.catch(function () {});
    early["list_sessions " + JSON.stringify(args)] = listed;
  }, function () {});
  window.__tandemEarly = early;
  window.__tandemEarlyAt = performance.now();
})();
