// The live page: follows /live/events (server-sent events, never polled) and redraws with
// textContent only: bot names are anyone's text. Each event is one JSON object:
//   board  the page's data (/live.json's): the matches in play, the newest results, the counts
//   play   one card of a match in play, as the record has it ("n": its place in the record's plays;
//          "won_by": the trick's winner as the engine gave it, when the card completed a trick)
//   hand   a hand scored by the engine: points taken, score, totals
//   shown  a match's plays so far, once its deal's other seatings are recorded
// A play or hand already held is skipped, so a board and the events around it may overlap.
(function () {
  "use strict";
  var matches = {};  // id -> the match as the board gave it, kept up to date by the events
  var order = [];
  var paused = false;

  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  function totals(m) { return m.hands.length ? m.hands[m.hands.length - 1].totals : null; }

  function drawMatch(m) {
    var item = el("li", null, "live-match");
    item.setAttribute("data-match", m.id);
    item.setAttribute("data-state", m.state || "playing");
    item.appendChild(el("b", m.id));
    if (m.state && m.state !== "playing") {  // waiting for a table, or on a cluster's workers
      item.appendChild(document.createTextNode(" "));
      item.appendChild(el("span", m.state, "pill small"));
    }
    if (m.withheld) {
      item.appendChild(document.createTextNode(" "));
      item.appendChild(el("span", "cards withheld", "pill small"));
    }
    var seats = el("div", null, "seats");
    var t = totals(m);
    m.seats.forEach(function (name, i) {
      var s = el("span", name, "seat");
      if (t) { s.appendChild(document.createTextNode(" ")); s.appendChild(el("b", String(t[i]))); }
      seats.appendChild(s);
    });
    item.appendChild(seats);
    if (m.withheld) {
      item.appendChild(el("div", "Its deal is still to be played in other seatings: its cards are shown once they are.", "note"));
    } else if (m.plays.length) {
      var last = m.plays[m.plays.length - 1];
      var trick = el("div", "Hand " + (last.hand + 1) + ", trick " + (last.trick + 1) + ": ", "trick");
      var cards = m.plays.filter(function (p) { return p.hand === last.hand && p.trick === last.trick; });
      cards.forEach(function (p, i) {
        if (i) trick.appendChild(document.createTextNode(", "));
        trick.appendChild(el("span", (m.seats[p.seat] || "seat " + p.seat) + " " + p.card, "play"));
      });
      if (last.won_by !== null && last.won_by !== undefined) {
        trick.appendChild(document.createTextNode(" (taken by " + (m.seats[last.won_by] || "seat " + last.won_by) + ")"));
      }
      item.appendChild(trick);
    } else if (m.started) {
      item.appendChild(el("div", "Passing.", "note"));
    }
    return item;
  }

  function drawLive() {
    var list = document.getElementById("live-list");
    clear(list);
    document.getElementById("live-count").textContent = String(order.length);
    if (!order.length) list.appendChild(el("li", paused ? "Nothing in play (the ladder is paused)." : "Nothing in play.", "empty"));
    order.forEach(function (id) { list.appendChild(drawMatch(matches[id])); });
  }

  function redraw(id) {
    var list = document.getElementById("live-list");
    var old = null;
    for (var i = 0; i < list.children.length; i++) {
      if (list.children[i].getAttribute("data-match") === id) { old = list.children[i]; break; }
    }
    if (old) list.replaceChild(drawMatch(matches[id]), old); else drawLive();
  }

  function drawNewest(d) {
    var newest = document.getElementById("newest-list");
    clear(newest);
    document.getElementById("match-count").textContent = d.matches + " played";
    if (!d.newest.length) newest.appendChild(el("li", "No results yet.", "empty"));
    d.newest.forEach(function (m) {
      var item = document.createElement("li");
      var a = el("a", m.id);
      a.href = "/matches/" + encodeURIComponent(m.id);
      item.appendChild(a);
      // A withheld match (its deal still played in other seats) has no result yet: its seats alone.
      (m.withheld ? m.seats : m.seats.slice().sort(function (x, y) { return x.place - y.place; })).forEach(function (s) {
        item.appendChild(document.createTextNode(" "));
        item.appendChild(el("span", m.withheld ? s.bot : s.bot + " " + s.score, m.withheld ? "seat" : "seat place" + s.place));
      });
      if (m.withheld) {
        item.appendChild(document.createTextNode(" "));
        item.appendChild(el("span", "result to come", "pill small"));
      }
      newest.appendChild(item);
    });
  }

  function onBoard(d) {
    paused = d.paused;
    matches = {};
    order = [];
    d.live.forEach(function (m) { matches[m.id] = m; order.push(m.id); });
    drawLive();
    drawNewest(d);
  }

  function onPlay(d) {
    var m = matches[d.match];
    if (!m || m.withheld || d.play.n !== m.plays.length) return;  // unknown, or held already: the board brings it
    m.plays.push(d.play);
    m.started = true;
    m.state = "playing";
    redraw(m.id);
  }

  function onHand(d) {
    var m = matches[d.match];
    if (!m || m.withheld || m.hands.some(function (h) { return h.hand === d.hand.hand; })) return;
    m.hands.push(d.hand);
    redraw(m.id);
  }

  function onShown(d) {
    var m = matches[d.match];
    if (!m) return;
    m.withheld = false;
    m.started = true;
    m.state = "playing";
    m.plays = d.plays;
    m.hands = d.hands;
    redraw(m.id);
  }

  var handlers = { board: onBoard, play: onPlay, hand: onHand, shown: onShown };
  if (!window.EventSource) return;
  var note = document.getElementById("live-note");
  var source = new EventSource("/live/events");
  source.onmessage = function (e) {
    var d;
    try { d = JSON.parse(e.data); } catch (err) { return; }
    var h = d && handlers[d.type];
    if (h) h(d);
  };
  source.onopen = function () { if (note) note.textContent = "This page follows the matches as each card is played."; };
  source.onerror = function () { if (note) note.textContent = "Reconnecting to the live matches..."; };
})();
