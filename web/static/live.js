// A running tournament's page: asks live.json for news after a cursor (the number of final
// matches already shown) and updates progress, standings and the finished matches in place.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || !live.getAttribute("data-live-url")) { return; }
  var url = live.getAttribute("data-live-url");
  var cursor = parseInt(live.getAttribute("data-cursor"), 10);
  var every = parseInt(live.getAttribute("data-poll-ms"), 10) || 2000;
  var rows = document.getElementById("match-rows");
  var note = document.getElementById("live-note");

  function poll() {
    fetch(url + "?cursor=" + cursor, { credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) { throw new Error("live.json: HTTP " + r.status); }
        return r.json();
      })
      .then(function (data) {
        document.getElementById("progress").innerHTML = data.progress_html;  // server-escaped
        document.getElementById("standings").innerHTML = data.standings_html;
        if (data.rows_html) { rows.insertAdjacentHTML("beforeend", data.rows_html); }
        cursor = data.cursor;
        live.setAttribute("data-cursor", String(cursor));
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
