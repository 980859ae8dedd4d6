/* global window, performance */
// Asks Rust for what the first screen needs (the settings and what to show) before the app's
// scripts are parsed, so the answers travel while they are. The app takes these promises once
// (`call` in src/api.ts); anywhere without Tauri this does nothing.
(function () {
  var tauri = window.__TAURI_INTERNALS__;
  if (!tauri) return;
  var early = {};
  ["startup", "get_settings"].forEach(function (cmd) {
    early[cmd] = tauri.invoke(cmd, {});
    // Handled here so a failure is not reported as unhandled; the taker still sees it.
    early[cmd].catch(function () {});
  });
  window.__tandemEarly = early;
  window.__tandemEarlyAt = performance.now();
})();
