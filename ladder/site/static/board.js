// The leaderboard: when a match is recorded, the page reads itself again and shows its new boards
// in place, without a reload (server-sent events from /events say how many matches are recorded).
(function () {
  "use strict";
  if (!window.EventSource || !window.fetch || !window.DOMParser) return;
  var line = document.querySelector(".status-line");
  if (!line) return;
  var shown = line.getAttribute("data-matches");
  var busy = false;
  var owed = false;

  function swap() {
    if (busy) { owed = true; return; }
    busy = true;
    fetch(window.location.href, { headers: { Accept: "text/html" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (text) {
        if (!text) return;
        var fresh = new DOMParser().parseFromString(text, "text/html");
        [".status-line", ".boards"].forEach(function (sel) {
          var now = document.querySelector(sel);
          var next = fresh.querySelector(sel);
          if (now && next) now.replaceWith(document.importNode(next, true));
        });
      })
      .catch(function () {})
      .then(function () {
        busy = false;
        if (owed) { owed = false; swap(); }
      });
  }

  var source = new EventSource("/events");
  source.onmessage = function (e) {
    var d;
    try { d = JSON.parse(e.data); } catch (err) { return; }
    if (!d || d.type !== "board" || d.matches === undefined) return;
    var count = String(d.matches) + (d.paused ? " paused" : "");
    if (shown === null) { shown = count; return; }
    if (count !== shown) { shown = count; swap(); }
  };
})();
