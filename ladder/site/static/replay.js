// The match replay: steps through the snapshots the server embedded as JSON (never as markup).
// Every text it writes goes through textContent; without JavaScript the page's links step instead.
(function () {
  "use strict";
  var root = document.getElementById("replay");
  var dataEl = document.getElementById("replay-data");
  if (!root || !dataEl) return;
  var data = JSON.parse(dataEl.textContent);
  var steps = data.steps;
  var step = parseInt(root.getAttribute("data-step"), 10) || 0;
  var params = new URLSearchParams(window.location.search);
  var view = params.has("view") && params.get("view") !== "" ? parseInt(params.get("view"), 10) : null;
  var timer = null;
  var SUITS = { S: ["\u2660", "spades", "black"], H: ["\u2665", "hearts", "red"],
                D: ["\u2666", "diamonds", "red"], C: ["\u2663", "clubs", "black"] };
  var NAMES = { J: "jack", Q: "queen", K: "king", A: "ace" };

  function cardEl(text, extra) {
    var rank = text.slice(0, -1), s = SUITS[text.slice(-1)] || ["?", "unknown", "black"];
    if (rank === "T") rank = "10";
    var el = document.createElement("span");
    el.className = "card " + s[2] + (extra ? " " + extra : "");
    el.setAttribute("data-card", text);
    el.title = (NAMES[rank] || rank) + " of " + s[1];
    var r = document.createElement("span"); r.className = "rank"; r.textContent = rank;
    var u = document.createElement("span"); u.className = "suit"; u.textContent = s[0];
    u.setAttribute("aria-hidden", "true");
    var sr = document.createElement("span"); sr.className = "sr"; sr.textContent = el.title;
    el.appendChild(r); el.appendChild(u); el.appendChild(sr);
    return el;
  }
  function back() {
    var el = document.createElement("span");
    el.className = "card back";
    el.setAttribute("aria-label", "a card face down");
    return el;
  }
  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }

  function href(n) {
    return "?step=" + n + (view === null ? "" : "&view=" + view);
  }

  function draw() {
    var s = steps[step];
    root.setAttribute("data-step", String(step));
    document.getElementById("stepno").textContent = String(step + 1);
    document.getElementById("caption").textContent = s.caption;
    var mark = document.getElementById("mark");
    mark.hidden = !s.mark;
    document.getElementById("marktext").textContent = s.mark || "";
    root.querySelectorAll(".seat-area").forEach(function (area) {
      var seat = parseInt(area.getAttribute("data-seat"), 10);
      var hand = area.querySelector(".hand");
      clear(hand);
      s.hands[seat].forEach(function (c) {
        hand.appendChild(view === null || view === seat ? cardEl(c) : back());
      });
      area.querySelector(".total").textContent = String(s.totals[seat]);
      area.querySelector(".tricks").textContent = String(s.tricks[seat]);
      var passed = area.querySelector(".passed");
      clear(passed);
      var p = s.passes && s.passes[seat];
      passed.hidden = !p;
      if (p) {
        passed.appendChild(document.createTextNode("passes "));
        p.forEach(function (c) { passed.appendChild(cardEl(c, "small")); });
      }
      var charged = area.querySelector(".charged");  // turbo_charging: the charged cards, face up
      clear(charged);
      var ch = s.charged && s.charged[seat];
      charged.hidden = !(ch && ch.length);
      if (ch && ch.length) {
        charged.appendChild(document.createTextNode("charged "));
        ch.forEach(function (c) { charged.appendChild(cardEl(c, "small")); });
      }
      area.classList.toggle("acting", s.kind === "play" && s.seat === seat);
    });
    root.querySelectorAll(".felt .slot").forEach(function (slot) {
      var seat = parseInt(slot.getAttribute("data-slot"), 10);
      var held = slot.querySelector(".slot-card") || slot;  // beside it, the seat's label at a table of more than five
      clear(held);
      // A boosted trick's second round: the seat's first card, smaller, under its second.
      if (s.under && s.under[seat]) held.appendChild(cardEl(s.under[seat], "small under"));
      if (s.table[seat]) held.appendChild(cardEl(s.table[seat], s.kind === "play" && s.seat === seat ? "fresh" : ""));
    });
    document.getElementById("first").href = href(0);
    document.getElementById("prev").href = href(Math.max(0, step - 1));
    document.getElementById("next").href = href(Math.min(steps.length - 1, step + 1));
    document.getElementById("last").href = href(steps.length - 1);
    root.querySelectorAll(".views a").forEach(function (a) {
      var v = a.getAttribute("data-view");
      a.classList.toggle("on", (v === "" && view === null) || String(view) === v);
    });
    syncAsk();
    // The step in the address, to share it; a document without one (an iframe's srcdoc) keeps it to itself.
    try {
      if (window.history && window.history.replaceState) window.history.replaceState(null, "", href(step));
    } catch (e) { /* no address to write to */ }
  }

  // The ask form of the match page (its owner's): the decision the replay shows, or the next of theirs.
  function syncAsk() {
    var at = document.getElementById("ask-at"), pick = document.getElementById("ask-step");
    if (!at || !pick) return;
    at.value = String(step);
    var options = pick.options;
    for (var i = 0; i < options.length; i++) {
      if (parseInt(options[i].getAttribute("data-replay"), 10) >= step) { pick.selectedIndex = i; return; }
    }
    pick.selectedIndex = options.length - 1;
  }

  function go(n) {
    step = Math.max(0, Math.min(steps.length - 1, n));
    draw();
  }
  function toggle() {
    var b = document.getElementById("play");
    if (timer) { clearInterval(timer); timer = null; b.textContent = "\u25b6 play"; return; }
    b.textContent = "\u23f8 pause";
    timer = setInterval(function () {
      if (step >= steps.length - 1) { toggle(); return; }
      go(step + 1);
    }, 700);
  }

  function on(id, f) {
    document.getElementById(id).addEventListener("click", function (e) { e.preventDefault(); f(); });
  }
  on("first", function () { go(0); });
  on("prev", function () { go(step - 1); });
  on("next", function () { go(step + 1); });
  on("last", function () { go(steps.length - 1); });
  var play = document.getElementById("play");
  play.hidden = false;
  play.addEventListener("click", function (e) { e.preventDefault(); toggle(); });
  root.querySelectorAll(".views a").forEach(function (a) {
    a.addEventListener("click", function (e) {
      e.preventDefault();
      var v = a.getAttribute("data-view");
      view = v === "" ? null : parseInt(v, 10);
      draw();
    });
  });
  document.addEventListener("keydown", function (e) {
    var t = e.target && e.target.tagName;
    if (t === "INPUT" || t === "TEXTAREA" || t === "SELECT") return;
    if (e.key === "ArrowRight") { e.preventDefault(); go(step + 1); }
    else if (e.key === "ArrowLeft") { e.preventDefault(); go(step - 1); }
    else if (e.key === " " || e.key === "Spacebar") { e.preventDefault(); toggle(); }
    else if (e.key === "Home") { e.preventDefault(); go(0); }
    else if (e.key === "End") { e.preventDefault(); go(steps.length - 1); }
  });
  root.classList.add("js");
})();
