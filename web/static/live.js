// A running tournament's page: asks live.json for the pages it shows (its URL carries the
// page tokens) and updates progress, standings and matches in place.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || !live.getAttribute("data-live-url")) { return; }
  var url = live.getAttribute("data-live-url");
  var every = parseInt(live.getAttribute("data-poll-ms"), 10) || 2000;
  var note = document.getElementById("live-note");

  function poll() {
    fetch(url, { credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) { throw new Error("live.json: HTTP " + r.status); }
        return r.json();
      })
      .then(function (data) {
        document.getElementById("progress").innerHTML = data.progress_html;  // server-escaped
        document.getElementById("standings").innerHTML = data.standings_html;
        document.getElementById("matches").innerHTML = data.matches_html;
        if (data.over) {
          if (note) { note.textContent = "The tournament is over."; }
          return;
        }
        window.setTimeout(poll, every);
      })
      .catch(function () { window.setTimeout(poll, every * 2); });
  }
  window.setTimeout(poll, every);
})();
