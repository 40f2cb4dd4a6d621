// The live page: polls /live.json every two seconds and redraws its two lists with textContent.
(function () {
  "use strict";
  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }
  function li(text, cls) { var e = document.createElement("li"); e.textContent = text; if (cls) e.className = cls; return e; }
  function tick() {
    fetch("/live.json", { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (d) {
      var live = document.getElementById("live-list");
      clear(live);
      document.getElementById("live-count").textContent = String(d.live.length);
      if (!d.live.length) live.appendChild(li(d.paused ? "Nothing in play (the ladder is paused)." : "Nothing in play.", "empty"));
      d.live.forEach(function (m) { live.appendChild(li(m.id + ": " + m.seats.join(", "))); });
      var newest = document.getElementById("newest-list");
      clear(newest);
      document.getElementById("match-count").textContent = d.matches + " played";
      if (!d.newest.length) newest.appendChild(li("No results yet.", "empty"));
      d.newest.forEach(function (m) {
        var item = document.createElement("li");
        var a = document.createElement("a");
        a.href = "/matches/" + encodeURIComponent(m.id);
        a.textContent = m.id;
        item.appendChild(a);
        // A withheld match (its deal still played in other seats) has no result yet: its seats alone.
        (m.withheld ? m.seats : m.seats.slice().sort(function (x, y) { return x.place - y.place; })).forEach(function (s) {
          var sp = document.createElement("span");
          sp.className = m.withheld ? "seat" : "seat place" + s.place;
          sp.textContent = m.withheld ? s.bot : s.bot + " " + s.score;
          item.appendChild(document.createTextNode(" "));
          item.appendChild(sp);
        });
        if (m.withheld) {
          var note = document.createElement("span");
          note.className = "pill small";
          note.textContent = "result to come";
          item.appendChild(document.createTextNode(" "));
          item.appendChild(note);
        }
        newest.appendChild(item);
      });
    }).catch(function () {});
  }
  setInterval(tick, 2000);
})();
