// The replay scrubber: steps in place (frame.json), keeps ?d= in the URL, plays and pauses.
// Without this script every control is a plain link or form and still works.
(function () {
  "use strict";
  var viewer = document.getElementById("viewer");
  if (!viewer) { return; }
  var url = viewer.getAttribute("data-frame-url");
  var last = parseInt(viewer.getAttribute("data-last"), 10);
  var d = parseInt(viewer.getAttribute("data-d"), 10);
  // The seat whose own view is shown (the server decides whether this visitor may see it).
  var seat = viewer.getAttribute("data-seat") || "";
  var seatQuery = seat ? "&seat=" + encodeURIComponent(seat) : "";
  var seatBox = document.getElementById("seat-view");
  var frame = document.getElementById("frame");
  var slider = document.getElementById("slider");
  var play = document.getElementById("play");
  var go = document.getElementById("go");
  var timer = null;
  var pending = 0;

  function links(n) {
    document.getElementById("first").href = "?d=0" + seatQuery;
    document.getElementById("back").href = "?d=" + Math.max(n - 1, 0) + seatQuery;
    document.getElementById("forward").href = "?d=" + Math.min(n + 1, last) + seatQuery;
    document.getElementById("last").href = "?d=" + last + seatQuery;
  }

  // Everything else on the page that names the position: the heading (and the tab's
  // title), the seat form's position and the link back to the public view.
  var heading = document.querySelector("#main > h1");
  var seatForm = document.querySelector("form input[type=hidden][name=d]");
  var seatHide = document.getElementById("seat-hide");

  function counters(n) {
    var at = "decision " + n;
    if (heading) { heading.textContent = heading.textContent.replace(/decision \d+/, at); }
    document.title = document.title.replace(/decision \d+/, at);
    if (seatForm) { seatForm.value = String(n); }
    if (seatHide) { seatHide.href = "?d=" + n; }
    slider.setAttribute("aria-valuetext", "decision " + n + " of " + last);
  }

  function moveCursor(n) {
    var line = document.getElementById("chart-cursor");
    if (!line) { return; }
    var x = parseFloat(line.getAttribute("data-x0")) +
      (n - parseFloat(line.getAttribute("data-v0"))) * parseFloat(line.getAttribute("data-dx"));
    line.setAttribute("x1", x.toFixed(1));
    line.setAttribute("x2", x.toFixed(1));
  }

  function show(n) {
    n = Math.max(0, Math.min(last, n));
    var ticket = ++pending;
    return fetch(url + "?d=" + n + seatQuery, { credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) { throw new Error("frame " + n + ": HTTP " + r.status); }
        return r.json();
      })
      .then(function (data) {
        if (ticket !== pending) { return; }
        d = data.d;
        frame.innerHTML = data.html;  // server-rendered, autoescaped
        if (seatBox && data.seat_html) { seatBox.innerHTML = data.seat_html; }
        slider.value = String(d);
        viewer.setAttribute("data-d", String(d));
        links(d);
        counters(d);
        moveCursor(d);
        var u = new URL(window.location.href);
        u.searchParams.set("d", String(d));
        window.history.replaceState(null, "", u.toString());
        if (d >= last) { stop(); }
      });
  }

  function stop() {
    if (timer !== null) { window.clearInterval(timer); timer = null; }
    play.textContent = "▶ Play";
    play.setAttribute("aria-pressed", "false");
  }

  function toggle() {
    if (timer !== null) { stop(); return; }
    if (d >= last) { d = -1; }
    play.textContent = "⏸ Pause";
    play.setAttribute("aria-pressed", "true");
    timer = window.setInterval(function () { show(d + 1); }, 400);
  }

  function intercept(id, target) {
    document.getElementById(id).addEventListener("click", function (e) {
      e.preventDefault();
      stop();
      show(target());
    });
  }

  // "go there" in the seat panel steps in place too (the panel is replaced on each step).
  if (seatBox) {
    seatBox.addEventListener("click", function (e) {
      var jump = e.target && e.target.getAttribute && e.target.getAttribute("data-seat-jump");
      if (jump === null || jump === undefined) { return; }
      e.preventDefault();
      stop();
      show(parseInt(jump, 10));
    });
  }

  play.hidden = false;
  go.hidden = true;
  intercept("first", function () { return 0; });
  intercept("back", function () { return d - 1; });
  intercept("forward", function () { return d + 1; });
  intercept("last", function () { return last; });
  play.addEventListener("click", toggle);
  slider.addEventListener("input", function () { stop(); show(parseInt(slider.value, 10)); });
  document.getElementById("goto").addEventListener("submit", function (e) {
    e.preventDefault();
    show(parseInt(slider.value, 10));
  });
  document.addEventListener("keydown", function (e) {
    var tag = (e.target && e.target.tagName) || "";
    if (tag === "INPUT" && e.target.type !== "range") { return; }
    if (tag === "SELECT" || tag === "TEXTAREA" || e.altKey || e.ctrlKey || e.metaKey) { return; }
    var keys = { ArrowLeft: -1, ArrowRight: 1 };
    if (e.key in keys) { e.preventDefault(); stop(); show(d + keys[e.key]); }
    else if (e.key === "Home") { e.preventDefault(); stop(); show(0); }
    else if (e.key === "End") { e.preventDefault(); stop(); show(last); }
    else if (e.key === " " && tag !== "BUTTON" && tag !== "A") { e.preventDefault(); toggle(); }
  });
  window.hamletViewer = { show: show, position: function () { return d; } };
})();
