// The person's page of `hearts play` (docs/play.md). Everything shown comes from the seat's events,
// pushed by the server (server-sent events): each decision's request as a bot in this seat gets it,
// the bots' notifications, and the table's own events. The page never judges a card itself: the
// dimmed cards are those the request does not list as legal, and why a card is refused is the
// referee's own answer (sent with the request, or given when the card is tried).
// Every name a bot or a person gave is shown as text, never as markup.
"use strict";

(function () {
  const RANKS = ["TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN", "JACK", "QUEEN", "KING", "ACE"];
  const SHORT = { TWO: "2", THREE: "3", FOUR: "4", FIVE: "5", SIX: "6", SEVEN: "7", EIGHT: "8", NINE: "9", TEN: "10",
    JACK: "J", QUEEN: "Q", KING: "K", ACE: "A" };
  const SUITS = { CLUBS: "♣", DIAMONDS: "♦", SPADES: "♠", HEARTS: "♥" };
  const DIRECTIONS = { PASS_DIRECTION_LEFT: "left", PASS_DIRECTION_RIGHT: "right", PASS_DIRECTION_ACROSS: "across",
    PASS_DIRECTION_HOLD: "hold", PASS_DIRECTION_SCATTER: "scatter", PASS_DIRECTION_MIX: "mix",
    PASS_DIRECTION_LEFT_TWO: "two to the left", PASS_DIRECTION_RIGHT_TWO: "two to the right",
    PASS_DIRECTION_CALL: "called by the dealer", PASS_DIRECTION_SPLIT: "split" };
  const UNTIMED_MS = 3600 * 1000;

  // -- what the address says ------------------------------------------------------------------
  const params = new URLSearchParams(location.search);
  let key = params.get("key") || sessionStorage.getItem("hearts-table-key") || "";
  if (params.get("key")) {
    sessionStorage.setItem("hearts-table-key", key);
    params.delete("key");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + (rest ? "?" + rest : ""));  // the key leaves the address bar
  }
  // At the arena's site (ladder/site/tables.py) the page is one table's: its requests go under that
  // table's path, with the site's session cookie and its CSRF token instead of a key.
  const base = document.body.dataset.base || "";
  const csrf = document.body.dataset.csrf || "";
  const pace = params.has("pace") ? Math.max(0, Number(params.get("pace")) || 0) : 450;

  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  function cardParts(name) {  // "CARD_QUEEN_OF_SPADES" -> ["QUEEN", "SPADES"]
    const m = /^CARD_([A-Z]+)_OF_([A-Z]+)$/.exec(name || "");
    return m && RANKS.includes(m[1]) && SUITS[m[2]] ? [m[1], m[2]] : null;
  }
  function cardText(name) {
    const p = cardParts(name);
    return p ? SHORT[p[0]] + SUITS[p[1]] : "?";
  }
  function cardLabel(name) {
    const p = cardParts(name);
    return p ? `${p[0].toLowerCase()} of ${p[1].toLowerCase()}` : "a card";
  }
  function cardsText(names) { return (names || []).map(cardText).join(" "); }
  function cardFace(name, tag) {
    const p = cardParts(name);
    const c = el(tag || "span", "card" + (p && (p[1] === "HEARTS" || p[1] === "DIAMONDS") ? " red" : ""));
    c.dataset.card = name;
    c.setAttribute("aria-label", cardLabel(name));
    const rank = el("span", "rank", p ? SHORT[p[0]] : "?");
    const suit = el("span", "suit", p ? SUITS[p[1]] : "");
    rank.setAttribute("aria-hidden", "true");
    suit.setAttribute("aria-hidden", "true");
    c.append(rank, suit);
    return c;
  }

  // -- the state shown ------------------------------------------------------------------------
  const S = {
    names: [], me: 0, players: 4, rules: null, hand: -1,
    view: null, ask: null, selected: [], focus: 0,
    trick: { leader: 0, cards: [] }, played: {}, tricks: 0, scores: [],
    passLogged: -1, ready: false, started: false, phase: "start", clockTimer: null, over: false,
  };

  function setPhase(phase) {
    S.phase = phase;
    document.body.dataset.phase = phase;
  }
  function say(text) { $("status").textContent = text; }
  function log(text, data) {
    const li = el("li", "", text);
    if (data) for (const [k, v] of Object.entries(data)) li.dataset[k] = String(v);
    const box = $("log");
    box.append(li);
    box.scrollTop = box.scrollHeight;  // the log scrolls, never the page
    return li;
  }
  function who(seat) { return seat === S.me ? "you" : (S.names[seat] || `seat ${seat}`); }
  function Who(seat) { return seat === S.me ? "You" : who(seat); }
  function rel(seat) { return (seat - S.me + S.players) % S.players; }

  // -- the table ------------------------------------------------------------------------------
  function place(seat, radius) {  // where a seat sits: you at the bottom, the next seat to your left
    const phi = Math.PI / 2 + rel(seat) * 2 * Math.PI / S.players;
    const x = 50 + radius * 1.05 * Math.cos(phi);
    const y = 50 + radius * Math.sin(phi);
    return radius > 30 ? { x: Math.max(13, Math.min(87, x)), y: Math.max(9, Math.min(91, y)) } : { x, y };
  }

  function drawSeats() {
    const box = $("seats");
    box.textContent = "";
    const rules = S.rules || {};
    const partner = rules.partnership ? (S.me + 2) % S.players : -1;
    for (let s = 0; s < S.players; s++) {
      if (s === S.me) continue;
      const at = place(s, 41);
      const d = el("div", "seat");
      d.dataset.seat = s;
      d.style.left = at.x + "%";
      d.style.top = at.y + "%";
      d.append(el("span", "name", S.names[s] || `seat ${s}`));
      const notes = [];
      if (s === partner) notes.push("partner");
      if (S.view && S.view.dealer === s) notes.push("dealer");
      if (S.view && S.view.kitty_taker === s) notes.push("took the kitty");
      const left = (rules.cards_per_player || 13) - (S.played[s] || 0);
      d.append(el("span", "count", `${Math.max(0, left)} cards` + (notes.length ? " · " + notes.join(", ") : "")));
      d.append(el("span", "total", `${S.scores[s] || 0} points`));
      const charged = ((S.view && S.view.charges) || []).filter((c) => (c.seat || 0) === s);
      if (charged.length) {
        const row = el("span", "charged");
        row.append(el("span", "", "charged "));
        for (const c of charged) row.append(cardFace(c.card));
        d.append(row);
      }
      box.append(d);
    }
  }

  function drawTrick() {
    const box = $("trick");
    box.textContent = "";
    const t = S.trick;
    t.cards.forEach((name, i) => {
      const seat = (t.leader + i) % S.players;
      const round = Math.floor(i / S.players);
      const at = place(seat, 17 + round * 6);
      const c = cardFace(name);
      c.classList.add("played");
      c.style.left = at.x + "%";
      c.style.top = at.y + "%";
      c.setAttribute("aria-label", `${who(seat)}: ${cardLabel(name)}`);
      if (t.winner !== undefined && t.winner === seat && round === 0) c.classList.add("winner");
      box.append(c);
    });
    const v = S.view || {};
    const notes = [];
    if (v.hearts_broken) notes.push("hearts broken");
    if ((v.table || []).length) notes.push(`${v.table.length} cards on the table`);
    if ((v.kitty || []).length) notes.push(`kitty ${cardsText(v.kitty)}`);
    const own = (v.charges || []).filter((c) => (c.seat || 0) === S.me).map((c) => c.card);
    if (own.length) notes.push(`you charged ${cardsText(own)}`);
    $("center").textContent = notes.join(" · ");
  }

  function drawScores() {
    const head = $("scores").tHead;
    if (!head.rows.length && S.names.length) {
      const tr = head.insertRow();
      tr.append(el("th", "", "hand"));
      for (let s = 0; s < S.players; s++) tr.append(el("th", "", s === S.me ? "you" : S.names[s]));
    }
  }

  function drawRules() {
    const r = S.rules || {};
    const parts = [`${S.rulesText || r.preset || "custom"}: ${S.players} players, game to ${r.target || 100}`];
    if (r.partnership) parts.push(`partners opposite (${r.partnership})`);
    if ((r.packs || 1) > 1) parts.push("two packs");
    $("rules").textContent = parts.join(" · ");
  }

  // -- your hand ------------------------------------------------------------------------------
  function handCards() { return [...$("hand").querySelectorAll(".card")]; }

  function drawHand() {
    const box = $("hand");
    box.textContent = "";
    const v = S.view;
    if (!v) return;
    const ask = S.ask;
    const legal = new Set(ask && ask.rpc === "PlayCard" ? v.legal_cards || [] : []);
    const refusals = (ask && ask.refusals) || {};
    (v.hand || []).forEach((name, i) => {
      const b = cardFace(name, "button");
      b.type = "button";
      b.dataset.index = i;
      b.tabIndex = i === S.focus ? 0 : -1;
      let dimmed = false;
      if (ask && ask.rpc === "PlayCard") dimmed = !legal.has(name);
      if (ask && ask.rpc === "ChargeCards") dimmed = name in refusals;
      if (!ask) dimmed = true;
      if (dimmed) {
        b.classList.add("dimmed");
        b.setAttribute("aria-disabled", "true");
        if (refusals[name]) b.title = refusals[name];
        b.setAttribute("aria-label", cardLabel(name) + (ask && refusals[name] ? `, cannot be played: ${refusals[name]}` : ""));
      }
      if (selecting()) b.setAttribute("aria-pressed", S.selected.includes(i) ? "true" : "false");
      b.addEventListener("click", () => { S.focus = i; act(i); });
      box.append(b);
    });
  }

  function selecting() { return !!S.ask && ["PassCards", "DiscardCards", "ChargeCards"].includes(S.ask.rpc); }

  function focusCard(i, move) {
    const cards = handCards();
    if (!cards.length) return;
    S.focus = Math.max(0, Math.min(cards.length - 1, i));
    cards.forEach((c, j) => { c.tabIndex = j === S.focus ? 0 : -1; });
    if (move !== false) cards[S.focus].focus();
  }

  function act(i) {  // Space, or a tap, on a card
    const ask = S.ask;
    const v = S.view;
    if (!ask || !v) { say("Wait for your turn."); return; }
    const name = (v.hand || [])[i];
    if (ask.rpc === "PlayCard") { send({ card: name }, name); return; }
    if (!selecting()) return;
    if (ask.rpc === "ChargeCards" && (ask.refusals || {})[name]) { say(`${cardText(name)}: ${ask.refusals[name]}`); return; }
    const at = S.selected.indexOf(i);
    if (at >= 0) S.selected.splice(at, 1);
    else S.selected.push(i);
    drawHand();
    drawActions();
    focusCard(i);
  }

  function wanted() {  // how many cards the open decision takes
    const ask = S.ask;
    if (!ask) return 0;
    if (ask.rpc === "PassCards") return S.rules.pass_count || 3;
    if (ask.rpc === "DiscardCards") return ask.request.count || (S.view.kitty || []).length;
    return -1;  // a charge: any the rules allow
  }

  function confirm() {  // Enter, or the button
    const ask = S.ask;
    if (!ask) return;
    if (ask.rpc === "PlayCard") { act(S.focus); return; }
    if (!selecting()) return;
    const cards = S.selected.map((i) => S.view.hand[i]);
    const n = wanted();
    if (n >= 0 && cards.length !== n) { say(`Choose ${n} cards (${cards.length} chosen).`); return; }
    send({ cards });
  }

  function drawActions() {
    const box = $("actions");
    box.textContent = "";
    const ask = S.ask;
    if (!ask) return;
    const button = (text, onclick, primary) => {
      const b = el("button", primary ? "primary" : "", text);
      b.type = "button";
      b.addEventListener("click", onclick);
      box.append(b);
      return b;
    };
    const v = S.view;
    if (ask.rpc === "PassCards") {
      const dir = DIRECTIONS[v.pass_direction] || "";
      const n = wanted();
      const b = button(`Pass cards (${S.selected.length}/${n}, ${dir})`, confirm, true);
      b.disabled = S.selected.length !== n;
      if (S.rules.pass_on && ["left", "right", "across", "two to the left", "two to the right"].includes(dir)) {
        button("Pass on what you receive", () => send({ cards: [] }));
      }
    } else if (ask.rpc === "DiscardCards") {
      const n = wanted();
      const b = button(`Discard (${S.selected.length}/${n})`, confirm, true);
      b.disabled = S.selected.length !== n;
    } else if (ask.rpc === "ChargeCards") {
      button(S.selected.length ? `Charge ${S.selected.length}` : "Charge nothing", confirm, true);
    } else if (ask.rpc === "ChooseMoon") {
      const pts = ask.request.moon_points || 26;
      const what = ask.request.sun ? "sun" : "moon";
      button(`Add ${pts} to every other player`, () => send({ choice: "MOON_CHOICE_ADD_TO_OTHERS" }), true).focus();
      button(`Take ${pts} off your total`, () => send({ choice: "MOON_CHOICE_SUBTRACT_FROM_SHOOTER" }));
      say(`You shot the ${what}! Choose how it scores.`);
    } else if (ask.rpc === "CallPass") {
      const k = S.rules.pass_count || 3;
      const n = S.players;
      const calls = [["Left", Array(k).fill(1)], ["Right", Array(k).fill(n - 1)]];
      if (n === 4) calls.push(["Across", Array(k).fill(2)]);
      calls.forEach(([label, offsets], i) => {
        const b = button(`Pass ${label.toLowerCase()}`, () => send({ offsets }), i === 0);
        if (i === 0) b.focus();
      });
      button("Mix", () => send({ mix: true }));
      say("You deal: call this hand's pass.");
    }
  }

  // -- talking to the table -------------------------------------------------------------------
  async function post(path, body) {
    const headers = csrf ? { "Content-Type": "application/json", "X-CSRF-Token": csrf }
      : { "Content-Type": "application/json", "X-Table-Key": key };
    const r = await fetch(base + path, {
      method: "POST",
      headers,
      body: JSON.stringify(body || {}),
      credentials: csrf ? "same-origin" : "omit",
      cache: "no-store",
    });
    let answer = {};
    try { answer = await r.json(); } catch (e) { answer = { ok: false, reason: `the table answered ${r.status}` }; }
    return answer;
  }

  async function send(answer, tried) {
    const ask = S.ask;
    if (!ask) return;
    const reply = await post("/answer", { id: ask.id, answer });
    if (reply.ok) {
      if (S.ask && S.ask.id === ask.id) closeAsk(answer);
      return;
    }
    say(reply.reason || "refused");
    if (tried) {
      const c = handCards().find((b) => b.dataset.card === tried);
      if (c) c.title = reply.reason || "";
    }
  }

  function closeAsk(answer) {
    const ask = S.ask;
    S.ask = null;
    stopClock();
    if (answer && answer.card && S.view) {  // your card goes to the trick at once
      S.view.hand = S.view.hand.filter((c) => c !== answer.card);
      S.trick.cards.push(answer.card);
      S.played[S.me] = (S.played[S.me] || 0) + 1;
      drawTrick();
    } else if (answer && answer.cards && S.view && ask && ask.rpc !== "ChargeCards") {
      const out = [...answer.cards];
      S.view.hand = S.view.hand.filter((c) => { const i = out.indexOf(c); if (i >= 0) { out.splice(i, 1); return false; } return true; });
    }
    S.selected = [];
    S.focus = Math.min(S.focus, Math.max(0, ((S.view && S.view.hand) || []).length - 1));
    setPhase("waiting");
    document.body.dataset.ask = "";
    drawHand();
    drawActions();
    if (answer && answer.cards && ask && ask.rpc === "PassCards") say(`Passed ${cardsText(answer.cards)}.`);
  }

  // -- the clock ------------------------------------------------------------------------------
  function startClock(ask) {
    stopClock();
    const total = ask.deadline_ms || 0;
    const bank = ask.request.view.time_bank_ms || 0;
    if (total >= UNTIMED_MS) { $("clock").textContent = "untimed"; return; }
    const end = performance.now() + total;
    const tick = () => {
      const left = Math.max(0, end - performance.now());
      $("clock").textContent = `${(left / 1000).toFixed(1)} s` + (bank ? ` (bank ${(bank / 1000).toFixed(0)} s)` : "");
      $("clock").classList.toggle("low", left < 5000);
    };
    tick();
    S.clockTimer = setInterval(tick, 100);
  }
  function stopClock() {
    if (S.clockTimer) clearInterval(S.clockTimer);
    S.clockTimer = null;
  }

  // -- the events, shown in order, at a pace a person can follow --------------------------------
  const queue = [];
  let running = false;
  function enqueue(e) {
    queue.push(e);
    if (!running) run();
  }
  async function run() {
    running = true;
    while (queue.length) {
      const e = queue.shift();
      try { await show(e); } catch (err) { console.error(err); }
    }
    running = false;
  }
  const later = (e) => queue.some((x) => x.type === "done" && x.id === e.id) || queue.some((x) => x.type === "dealt" && x.hand === e.hand && e.type === "hold");
  const wait = (ms) => (queue.length > 6 || pace === 0 ? Promise.resolve() : sleep(ms * pace / 450));

  function newHand(v) {
    S.hand = v.hand_number;
    document.body.dataset.hand = String(v.hand_number);
    S.played = {};
    S.tricks = 0;
    S.trick = { leader: 0, cards: [] };
    S.scores = v.scores || S.scores;
    const dealer = v.dealer || 0;
    log(`Hand ${v.hand_number + 1}: ${who(dealer)} ${dealer === S.me ? "deal" : "deals"}; the pass is ${DIRECTIONS[v.pass_direction] || "none"}.`,
      { kind: "deal", hand: v.hand_number });
  }

  function logPass(v) {
    if (S.passLogged === v.hand_number || !(v.passed_cards || []).length) return;
    S.passLogged = v.hand_number;
    const dir = v.pass_direction;
    const k = (S.rules.pass_count || 3);
    const n = S.players;
    const step = { PASS_DIRECTION_LEFT: 1, PASS_DIRECTION_RIGHT: n - 1, PASS_DIRECTION_ACROSS: 2,
      PASS_DIRECTION_LEFT_TWO: 2, PASS_DIRECTION_RIGHT_TWO: n - 2 }[dir];
    let text;
    if (step !== undefined) {
      const to = (S.me + step) % n;
      const from = (S.me - step + n * 2) % n;
      text = `You passed ${cardsText(v.passed_cards)} to ${who(to)}`;
      text += (v.received_cards || []).length ? `; ${who(from)} passed you ${cardsText(v.received_cards)}.` : "; you passed on, and received none.";
      text += ` Every player passed ${k} cards ${DIRECTIONS[dir]}.`;
    } else if (dir === "PASS_DIRECTION_MIX") {
      text = `You passed ${cardsText(v.passed_cards)} to the middle; the cards were mixed and dealt back: you got ${cardsText(v.received_cards)}.`;
    } else {
      text = `You passed ${cardsText(v.passed_cards)} (${DIRECTIONS[dir] || dir}) and received ${cardsText(v.received_cards)}.`;
    }
    log(text, { kind: "pass", hand: v.hand_number, passed: (v.passed_cards || []).join(" "), received: (v.received_cards || []).join(" ") });
  }

  async function showTrickSoFar(t) {  // the cards of the trick in progress, one by one
    const leader = t.leader || 0;
    const cards = t.cards || [];
    if (S.trick.leader !== leader || cards.slice(0, S.trick.cards.length).join() !== S.trick.cards.join()) {
      S.trick = { leader, cards: [] };
    }
    while (S.trick.cards.length < cards.length) {
      const seat = (leader + S.trick.cards.length) % S.players;
      S.trick.cards.push(cards[S.trick.cards.length]);
      if (seat !== S.me) S.played[seat] = (S.played[seat] || 0) + 1;
      drawTrick();
      drawSeats();
      await wait(450);
    }
  }

  async function show(e) {
    if (e.type === "ready") {
      S.ready = true;
      if (e.rules) S.rulesText = e.rules;
      if (S.phase === "start") $("overlay-hint").textContent = "Space or Enter to start";
      showAwaiting(e);
      return;
    }
    if (e.type === "awaiting") { showAwaiting(e); return; }
    if (e.type === "ask") return showAsk(e);
    if (e.type === "done") {
      if (S.ask && S.ask.id === e.id) {
        const how = e.how;
        closeAsk(null);
        if (how === "away") say("You were away: the referee's substitute played for you.");
        else if (how === "timeout") say("Your time ran out: the referee's substitute played for you.");
      }
      return;
    }
    if (e.type === "notify") return showNotify(e.notify);
    if (e.type === "hold") {
      if (later(e)) return;
      setPhase("hold");
      $("overlay-go").textContent = "Deal again";
      $("overlay-go").disabled = false;
      $("overlay-hint").textContent = "Tap, Space or Enter to deal again";
      openOverlay();
      return;
    }
    if (e.type === "dealt") { closeOverlay(); setPhase("waiting"); return; }
    if (e.type === "closed") { S.over = true; stream.close(); return; }
    if (e.type === "recorded") {
      const p = el("p", "recorded", e.url ? "Recorded: " : `Recorded: hearts replay ${e.match_id} --db ${e.db}`);
      if (e.url) {  // the arena's match page (a path of this site only)
        const a = el("a", "", `match ${e.match_id}`);
        if (String(e.url).startsWith("/")) a.href = String(e.url);
        p.append(a);
      }
      $("overlay-body").append(p);
      log(p.textContent, { kind: "recorded" });
      return;
    }
  }

  // At a table of several people the match starts once each has pressed start: each page says who
  // is still awaited (names as text).
  function showAwaiting(e) {
    if ((e.people || 1) < 2 || S.started) return;
    const others = (e.others || []).map(String);
    const box = $("overlay-awaiting");
    document.body.dataset.awaiting = others.join(" ");
    if (e.started && S.phase === "start") {  // pressed on a page of this seat before a reload
      setPhase("starting");
      $("overlay-go").disabled = true;
    }
    if (!others.length) {
      box.textContent = S.phase === "start" ? "Everyone else is ready: the match starts when you press start." : "";
      if (S.phase === "starting") $("overlay-hint").textContent = "Dealing...";
      return;
    }
    box.textContent = `Still awaited: ${S.phase === "start" ? "you, " : ""}${others.join(", ")}.`;
    if (S.phase === "starting") $("overlay-hint").textContent = `Waiting for ${others.join(", ")} to press start...`;
  }

  async function showAsk(e) {
    const v = e.request.view;
    S.names = v.player_names || S.names;
    S.me = v.seat || 0;
    S.rules = v.rules || S.rules;
    S.players = (S.rules && S.rules.players) || 4;
    if (!S.started) { S.started = true; closeOverlay(); drawRules(); drawScores(); }
    // Protobuf's JSON leaves out fields at their default (0, false, empty): read them as such.
    v.hand_number = v.hand_number || 0;
    v.seat = v.seat || 0;
    v.dealer = v.dealer || 0;
    if (v.hand_number !== S.hand) newHand(v);
    S.view = v;
    S.scores = v.scores || S.scores;
    logPass(v);
    drawSeats();
    if (e.rpc === "PlayCard") await showTrickSoFar(v.current_trick || {});
    else drawTrick();
    if (later(e)) { drawHand(); return; }  // over already (you were away): nothing to answer
    S.ask = e;
    S.selected = [];
    setPhase({ PassCards: "pass", PlayCard: "play", DiscardCards: "discard", ChargeCards: "charge",
      CallPass: "call", ChooseMoon: "moon" }[e.rpc] || "ask");
    document.body.dataset.ask = String(e.id);
    const cards = v.hand || [];
    if (e.rpc === "PlayCard") {
      const legal = new Set(v.legal_cards || []);
      const first = cards.findIndex((c) => legal.has(c));
      S.focus = first >= 0 ? first : 0;
      say(v.current_trick && (v.current_trick.cards || []).length ? "Your turn: follow the trick." : "Your lead.");
    } else if (e.rpc === "PassCards") {
      S.focus = 0;
      say(`Choose ${S.rules.pass_count || 3} cards to pass ${DIRECTIONS[v.pass_direction] || ""}, then Enter.`);
    } else if (e.rpc === "DiscardCards") {
      S.focus = 0;
      say(`You took the kitty: choose ${wanted()} cards to discard into your tricks, then Enter.`);
    } else if (e.rpc === "ChargeCards") {
      S.focus = Math.max(0, cards.findIndex((c) => !(c in (e.refusals || {}))));
      say("Charge a card face up (A♥ Q♠ J♦ 10♣), or none, then Enter.");
    }
    drawHand();
    drawActions();
    startClock(e);
    if (["PlayCard", "PassCards", "DiscardCards", "ChargeCards"].includes(e.rpc)) focusCard(S.focus);
  }

  async function showNotify(n) {
    if (n.trick_completed) {
      const t = n.trick_completed.trick || {};
      await showTrickSoFar({ leader: t.leader || 0, cards: t.cards || [] });
      const winner = t.winner;
      S.trick.winner = winner;
      drawTrick();
      const plays = (t.cards || []).map((c, i) => `${who(((t.leader || 0) + i) % S.players)} ${cardText(c)}`).join(", ");
      const end = t.no_winner ? "the cards cancel: they stay on the table" : `${who(winner)} ${winner === S.me ? "take" : "takes"} it`;
      log(`Trick ${S.tricks + 1}: ${plays}; ${end}.`, { kind: "trick", hand: n.trick_completed.hand_number || 0,
        trick: S.tricks, leader: t.leader || 0, winner: winner === undefined ? "" : winner, cards: (t.cards || []).join(" ") });
      S.tricks += 1;
      await wait(900);
      S.trick = { leader: winner === undefined ? t.leader || 0 : winner, cards: [] };
      drawTrick();
      return;
    }
    if (n.hand_scored) {
      const h = n.hand_scored;
      S.scores = h.totals || [];
      const row = $("scores").tBodies[0].insertRow();
      row.append(el("th", "", String((h.hand_number || 0) + 1)));
      for (let s = 0; s < S.players; s++) {
        row.append(el("td", "", `${(h.hand_score || [])[s] || 0} → ${(h.totals || [])[s] || 0}`));
      }
      const lines = [];
      if (h.moon_shooter !== undefined) lines.push(`${Who(h.moon_shooter)} shot the moon!`);
      if (h.sun_shooter !== undefined) lines.push(`${Who(h.sun_shooter)} shot the sun!`);
      const body = $("overlay-body");
      body.textContent = "";
      $("overlay-title").textContent = `Hand ${(h.hand_number || 0) + 1}`;
      for (const l of lines) body.append(el("p", "moon", l));
      const table = el("table", "summary");
      const head = table.createTHead().insertRow();
      for (const t of ["", "points taken", "this hand", "total"]) head.append(el("th", "", t));
      for (let s = 0; s < S.players; s++) {
        const r = table.insertRow();
        r.append(el("th", "", s === S.me ? "you" : S.names[s]),
          el("td", "", String((h.points_taken || [])[s] || 0)),
          el("td", "", String((h.hand_score || [])[s] || 0)),
          el("td", "", String((h.totals || [])[s] || 0)));
      }
      body.append(table);
      if ((h.team_totals || []).length) body.append(el("p", "", `Teams: ${h.team_totals.join(" : ")}`));
      log(`Hand ${(h.hand_number || 0) + 1} scored: ` + (h.hand_score || []).map((p, s) => `${who(s)} ${p}`).join(", ") +
        (lines.length ? " " + lines.join(" ") : ""), { kind: "hand", hand: h.hand_number || 0, score: (h.hand_score || []).join(" "), totals: (h.totals || []).join(" ") });
      drawSeats();
      return;
    }
    if (n.match_over) {
      const o = n.match_over;
      S.over = true;
      setPhase("over");
      stopClock();
      $("clock").textContent = "";
      const body = $("overlay-body");
      body.textContent = "";
      const places = o.places || [];
      const mine = places[S.me];
      $("overlay-title").textContent = mine === 1 ? "You won!" : `The match is over: you placed ${mine}`;
      const table = el("table", "summary");
      const head = table.createTHead().insertRow();
      for (const t of ["", "total", "place"]) head.append(el("th", "", t));
      for (let s = 0; s < S.players; s++) {
        const r = table.insertRow();
        r.append(el("th", "", s === S.me ? "you" : S.names[s]), el("td", "", String((o.totals || [])[s] || 0)), el("td", "", String(places[s] || "")));
      }
      body.append(table);
      $("overlay-go").hidden = true;
      $("overlay-hint").textContent = "";
      openOverlay();
      log(`The match is over: ` + (o.totals || []).map((t, s) => `${who(s)} ${t}`).join(", ") + ".", { kind: "over", places: places.join(" ") });
    }
  }

  // -- the overlay: start, each hand's scores, the end ------------------------------------------
  function openOverlay() {
    $("overlay").hidden = false;
    if (!$("overlay-go").hidden) $("overlay-go").focus();
  }
  function closeOverlay() { $("overlay").hidden = true; }

  async function go() {  // Start, or Deal again
    if (S.phase === "start") {
      setPhase("starting");
      $("overlay-hint").textContent = S.ready ? "Dealing..." : "Starting the bots, then dealing...";
      $("overlay-go").disabled = true;
      await post("/start");
    } else if (S.phase === "hold") {
      setPhase("waiting");
      closeOverlay();
      await post("/deal");
    }
  }
  $("overlay-go").addEventListener("click", (ev) => { ev.preventDefault(); go(); });
  $("overlay").addEventListener("click", (ev) => { if (ev.target === $("overlay") && S.phase === "hold") go(); });

  // -- the keyboard: every control works from it alone ------------------------------------------
  document.addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const k = ev.key;
    if (S.phase === "start" || S.phase === "hold") {
      if (k === " " || k === "Enter") { ev.preventDefault(); go(); }
      return;
    }
    const onCard = ev.target instanceof HTMLElement && ev.target.classList.contains("card") && ev.target.closest("#hand");
    const onButton = ev.target instanceof HTMLButtonElement && !onCard;
    if (k === "ArrowLeft" || k === "ArrowRight" || k === "Home" || k === "End") {
      if (onButton && ev.target.closest("#actions")) {  // the buttons: arrows move between them
        const bs = [...$("actions").querySelectorAll("button")];
        const i = bs.indexOf(ev.target);
        const j = k === "ArrowLeft" ? i - 1 : k === "ArrowRight" ? i + 1 : k === "Home" ? 0 : bs.length - 1;
        if (bs[Math.max(0, Math.min(bs.length - 1, j))]) bs[Math.max(0, Math.min(bs.length - 1, j))].focus();
        ev.preventDefault();
        return;
      }
      const n = handCards().length;
      if (!n) return;
      ev.preventDefault();
      const i = k === "ArrowLeft" ? S.focus - 1 : k === "ArrowRight" ? S.focus + 1 : k === "Home" ? 0 : n - 1;
      focusCard(i);
      return;
    }
    if (onButton) return;  // Space and Enter press the button itself
    if (k === " ") {
      ev.preventDefault();
      if (handCards().length) { act(S.focus); }
      return;
    }
    if (k === "Enter") {
      ev.preventDefault();
      confirm();
      return;
    }
    if (k === "?") {
      const v = S.view;
      const name = v && (v.hand || [])[S.focus];
      const why = name && S.ask && (S.ask.refusals || {})[name];
      say(name ? (why ? `${cardText(name)}: ${why}` : `${cardText(name)} may be played.`) : "");
    }
  });

  // -- the stream -----------------------------------------------------------------------------
  if (!key && !csrf) {
    $("overlay-body").textContent = "Open the address hearts play printed: it holds the table's key.";
    $("overlay-go").hidden = true;
    $("overlay-hint").textContent = "";
    return;
  }
  const stream = new EventSource(base + "/events" + (csrf ? "" : "?key=" + encodeURIComponent(key)));
  let seen = 0;
  stream.onmessage = (m) => {
    let e;
    try { e = JSON.parse(m.data); } catch (err) { return; }
    if (!e || typeof e.seq !== "number" || e.seq <= seen) return;  // a resumed stream sends nothing twice
    seen = e.seq;
    enqueue(e);
  };
  stream.onerror = () => {
    if (S.over) { stream.close(); say("The match is over; the table has closed."); }
    else say("Lost the table: trying again...");
  };
  stream.onopen = () => { if ($("status").textContent.startsWith("Lost")) say("Back at the table."); };
  window.addEventListener("pagehide", () => stream.close());
  $("overlay-go").focus();
})();
