// The player: draws a run's frames (agent/page/frames.py) in the browser. Step, play, run to the end, look
// back, predict: each is a redraw from data already here, with no request to any server. One ES module, no
// build step; the run graph is laid out by Graphviz compiled to WebAssembly (viz-global.js, the global `Viz`).

const PLAY_EVERY_MS = 1000;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "text") node.textContent = value;
    else if (name === "html") node.innerHTML = value; // only ever the escaped HTML frames.py wrote
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

// A sentence of the page's (agent/page/safe_text.py `with_code`): a lead in `**` at its start bold, `code` spans
// between backticks, a backslash keeping the character after it as it is (a stranger's backtick), the rest text.
function withCode(text) {
  const span = el("span");
  let rest = String(text);
  const lead = rest.startsWith("**") ? rest.indexOf("**", 2) : -1;
  if (lead > 2) {
    span.append(el("strong", { text: rest.slice(2, lead) }));
    rest = rest.slice(lead + 2);
  }
  let piece = "";
  let code = false;
  const done = () => { if (piece) span.append(code ? el("code", { text: piece }) : piece); piece = ""; };
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === "\\" && i + 1 < rest.length) piece += rest[++i];
    else if (rest[i] === "`") { done(); code = !code; } else piece += rest[i];
  }
  done();
  return span;
}

// Graphviz sizes a node by its own guess of the text's width; the browser's font may draw it wider. A text wider
// than its node's outline is drawn to the outline's width (once a graph: the fitted SVG is kept). True: it fitted.
function fitTexts(svg) {
  if (!svg || svg.dataset.fitted || !svg.isConnected || !svg.getBBox().width) return false; // drawn, to measure
  svg.dataset.fitted = "1";
  for (const node of svg.querySelectorAll("g.node, g.cluster")) {
    const outline = node.querySelector(":scope > polygon, :scope > ellipse, :scope > path");
    if (!outline) continue;
    const room = outline.getBBox().width - 8;
    for (const text of node.querySelectorAll("text")) {
      if (room > 0 && text.getBBox().width > room) {
        text.setAttribute("textLength", room.toFixed(1));
        text.setAttribute("lengthAdjust", "spacingAndGlyphs");
      }
    }
  }
  return true;
}

// Graphviz may load a moment after the player (on the page it is a module of its own): wait for it a while.
const VIZ_WAIT_MS = 15000;
let vizReady = null;
function viz() {
  if (!vizReady) {
    const started = Date.now();
    vizReady = new Promise((resolve, reject) => {
      const look = () => {
        if (typeof Viz !== "undefined" && Viz.instance) resolve(Viz.instance());
        else if (Date.now() - started > VIZ_WAIT_MS) reject(new Error("no Viz"));
        else setTimeout(look, 50);
      };
      look();
    });
    vizReady.catch(() => {});
  }
  return vizReady;
}

const players = [];
let keysBound = false;
const typing = (node) => node && (node.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(node.tagName) &&
                                  node.type !== "range" && node.type !== "checkbox");
const playerOf = (node) => players.find((p) => p.root.contains(node));
// What a click outside the player may start a server run with: a control that acts when clicked. A click on the page
// around one, on a text, on the choice already made, on what only opens a list or on a help mark starts none: it
// neither hands the player's actions over nor holds its keys (a switch's help mark flips no switch: views/page_js.py).
const ACTS = 'a[href], button, summary, [role="button"], [role="option"], [role="radio"], [role="checkbox"], ' +
             '[role="switch"], [role="tab"], [role="slider"], [role="menuitem"], input[type="checkbox"], ' +
             'input[type="radio"], input[type="file"], label';
function mayStartRun(target) {
  const control = target.closest?.(page?.acts ? `${ACTS}, ${page.acts}` : ACTS);
  if (!control || (page && control.closest(page.help)) || control.getAttribute("aria-haspopup") ||
      control.getAttribute("aria-checked") === "true" || control.getAttribute("aria-selected") === "true" ||
      control.disabled || control.getAttribute("aria-disabled") === "true") return false;
  if (control.tagName !== "LABEL") return true;
  const input = control.querySelector('input[type="checkbox"], input[type="radio"]'); // a switch's or a choice's
  return Boolean(input) && !(input.type === "radio" && input.checked) && !input.disabled;
}
// A player the page took away (another layout, a new run) no longer hears keys or holds clicks.
const dropGone = () => players.filter((p) => !p.root.isConnected).forEach((gone) => gone.destroy());

// On the Streamlit page, a click on one of the page's own controls (a switch, Undo, a key's button) waits while
// the server takes up what the player did since its last word, then goes on: the server acts on the run as seen.
let heldClick = null;
// On the Streamlit page, a Step or a key taken while the server draws anew (Undo, a switch) waits for the player
// it draws, and acts there: the player on screen until then may be about to be replaced.
const deferred = [];
const PLAYER_KEYS = new Set(["s", "e", "r", "z", "y", " ", "ArrowLeft", "ArrowRight", "Home", "End", "1", "2", "3",
                             "4"]);
const keyName = (event) => (event.key.length === 1 ? event.key.toLowerCase() : event.key);
// A player's button pressed while it waited, as the page's own key for the same action.
const KEY_OF_ACTION = { step: "s", runToEnd: "e", reset: "r", undo: "z", redo: "y" };

function actDeferred() {
  dropGone();
  if (!deferred.length) return;
  const player = players.find((p) => p.host);
  if (!player) {
    if (pageTakes) return; // the end of the page's run calls again
    // A player's container without a player: one on its way (its frames), or one the run just ended took away.
    const waited = performance.now() - deferred[0].at;
    if (page && document.querySelector(`[class*="${page.version}"]`) && waited < HOLD_AT_MOST_MS) {
      if (!pageBusy()) setTimeout(actDeferred, 150);
      return;
    }
    // The server drew the run itself (Export, Change the past): what waited is the page's, pressed on its own keys.
    for (const action of deferred.splice(0)) {
      const key = action.key || KEY_OF_ACTION[action.name];
      if (key) window[page.press_key]?.(key);
    }
    return;
  }
  if (player.busy() || pageTakes) return; // a page control's run may take this player away: its end calls again
  if (player.root.closest(page.stale)) { setTimeout(actDeferred, 150); return; } // the ended run's leftover
  while (deferred.length && !player.busy()) { // in order; one that hands over to the server holds the rest
    const action = deferred.shift();
    if (action.key) player.key({ key: action.key });
    else player[action.name](...action.args);
  }
}

const HOLD_AT_MOST_MS = 4000;

function holdClick(event, player) {
  event.preventDefault();
  event.stopImmediatePropagation();
  const target = event.composedPath()[0] || event.target;
  const prefix = page?.keyed; // a control's own class, to find it again if the server drew it anew
  const stKey = prefix && [...(target.closest?.(`[class*="${prefix}"]`)?.classList || [])]
    .find((c) => c.startsWith(prefix));
  // A second press of the same control while waiting is the same intent; another control's is its own.
  if (heldClick?.clicks.some((c) => c.target === target || (stKey && c.stKey === stKey))) return;
  if (heldClick) { heldClick.clicks.push({ target, stKey }); return; }
  heldClick = { clicks: [{ target, stKey }], id: player.flush(), timer: setTimeout(releaseClick, HOLD_AT_MOST_MS) };
}

// From a click on one of the page's controls until the run it starts has ended, keys wait: the player on screen
// may be on its way out (Export, Change the past), and what it took then the server would never hear. A click that
// starts no run holds them at most HOLD_AT_MOST_MS.
let pageTakes = null;
function awaitPageRun() {
  clearTimeout(pageTakes?.timer);
  const waited = { started: false };
  waited.timer = setTimeout(() => { // the end of a run that started is seen by watchPage; at most this long
    if (waited.started) waited.timer = setTimeout(pageRunEnded, HOLD_AT_MOST_MS); else pageRunEnded();
  }, HOLD_AT_MOST_MS);
  pageTakes = waited;
}
function pageRunEnded() {
  clearTimeout(pageTakes?.timer);
  pageTakes = null;
  setTimeout(actDeferred, 150); // Streamlit takes away what the run did not draw a moment after it ends
}

function releaseClick() {
  const held = heldClick;
  if (!held) return;
  heldClick = null;
  clearTimeout(held.timer);
  awaitPageRun();
  for (const { target, stKey } of held.clicks) {
    const now = target.isConnected ? target :
      stKey && document.querySelector(`.${stKey} button, .${stKey} label, .${stKey} input`);
    if (now) now.click();
  }
}

function bindKeys() {
  if (keysBound) return;
  keysBound = true;
  // In the capture phase on the window: before the page's own keys (its buttons' keys, Streamlit's R).
  window.addEventListener("keydown", (event) => {
    const target = event.composedPath()[0] || event.target;
    if (event.ctrlKey || event.metaKey || event.altKey || typing(target)) return;
    dropGone();
    const inside = playerOf(target);
    const player = inside || (players.length === 1 || !target || target === document.body ? players.at(-1) : null);
    // On the page, a player drawn but not yet mounted (its frames on their way), or one about to be replaced.
    const coming = !player && page && document.querySelector(`[class*="${page.version}"]`);
    if ((coming || pageTakes || player?.busy() || deferred.length) && PLAYER_KEYS.has(keyName(event))) {
      event.preventDefault(); // the server is drawing anew: the key goes to the player it draws
      event.stopPropagation();
      deferred.push({ key: keyName(event), at: performance.now() }); // after those still waiting: in order
      if (!coming && !pageTakes && !player?.busy()) setTimeout(actDeferred, 0);
    } else if (player && player.key(event)) {
      event.preventDefault();
      event.stopPropagation(); // R is Streamlit's own rerun key too: one press, one Reset
    }
  }, true);
  window.addEventListener("click", (event) => {
    if (!event.isTrusted && heldClick === null && !players.some((p) => p.unheard)) return;
    const target = event.composedPath()[0] || event.target;
    dropGone();
    if (playerOf(target) || typing(target) || !mayStartRun(target)) return;
    const player = players.find((p) => p.unheard);
    if (player || heldClick) holdClick(event, player || players[0]);
    else if (page && target.closest?.(`[class*="${page.keyed}"], ${page.option}`)) awaitPageRun();
  }, true);
  // Back and Forward: each player on the page draws an address of its own (Player.followAddress).
  window.addEventListener("popstate", () => {
    dropGone();
    players.filter((p) => p.host).forEach((p) => p.followAddress());
  });
  // Typing a task: the server hears the player first, while the learner types (a rerun does not take the box).
  window.addEventListener("focusin", (event) => {
    const target = event.composedPath()[0] || event.target;
    if (typing(target) && !playerOf(target)) players.forEach((p) => p.flush());
  }, true);
}

class Player {
  // `host`, on the Streamlit page: where the server's run stands (`start`), its address (`query`), the next
  // scenario's label and the component's `setState`/`trigger`. What the learner does is kept (`played`), written
  // into the address, and handed to the server before the page's next action: a link, Undo and the score stay true.
  constructor(root, data, host = null) {
    this.root = root;
    this.data = data;
    this.frames = data.frames;
    this.host = host;
    const start = host?.start || {};
    this.at = Math.min(start.at || 0, this.frames.length - 1); // the Step reached
    this.look = start.look ?? null; // the turn looked back at; null: the latest
    this.predict = Boolean(data.predict);
    this.picks = [...(start.picks || [])]; // answers to the questions of the Step reached, while predicting
    this.askedAt = start.asked ? this.at : null;
    this.score = { right: start.score?.[0] || 0, answered: start.score?.[1] || 0 };
    this.played = []; // on the page: the actions since the server's last word
    // Undo and Redo of the player's own actions, in the browser: what each undoable action left (a Step, Run to
    // end, Reset, an answer; as the server keeps them, so its Undo of the same actions lands in the same place).
    this.undone = [];
    this.redone = [];
    this.unheard = false; // on the page: actions the server has not been handed yet
    this.timer = null;
    this.notice = "";
    this.svgs = new Map();
    // Each action is an address of its own in the browser's history, as a server action's is: Back or Forward to
    // one with the server's screen is drawn here, from where the server's run stands and the address's actions.
    this.origin = this.state();
    this.build();
    this.draw();
    if (!this.allControls || this.host.view === "Run") this.prerender(); // the views without the graph lay none out
  }

  // ------------------------------------------------------------ what the player is at

  get frame() { return this.frames[this.at]; }
  get last() { return this.frames.length - 1; }
  get asking() {
    const questions = this.frame.questions || [];
    return this.predict && this.askedAt === this.at && this.picks.length < questions.length;
  }
  frameOfTurn(turn) {
    for (let i = this.at; i >= 0; i--) if (this.frames[i].turn === turn) return i;
    return 0;
  }

  // ------------------------------------------------------------ actions

  step(quietly = false) {
    if (this.asking) { this.say("Answer the question first (keys 1 to 4): then Step goes on."); return false; }
    if (this.at >= this.last) {
      const outcome = this.frame.outcome;
      this.say(`The loop has finished${outcome ? ` (${outcome.headline})` : ""}. There is nothing left to step: ` +
               "Reset starts it again.");
      this.pause();
      return false;
    }
    this.keep();
    this.at += 1;
    this.look = null;
    this.picks = [];
    this.askedAt = this.predict && (this.frame.questions || []).length ? this.at : null;
    this.record("s");
    if (!quietly) this.notice = "";
    if (this.asking) this.pause();
    this.draw();
    return true;
  }
  runToEnd() {
    if (this.asking) { this.say("Answer the question first (keys 1 to 4): then Step goes on."); return; }
    if (this.at >= this.last) { this.step(); return; } // at the end: said as a Step says it
    this.pause();
    this.keep();
    this.record("e");
    this.at = this.last;
    this.look = null;
    this.picks = [];
    this.askedAt = null;
    this.notice = "";
    this.draw();
  }
  reset() {
    this.pause();
    if (this.at === 0) { this.say("There is nothing to reset: no turn has gone through yet."); return; }
    this.keep();
    this.record("r");
    this.at = 0;
    this.look = null;
    this.picks = [];
    this.askedAt = null;
    this.notice = "";
    this.draw();
  }
  play() {
    if (this.timer) return this.pause();
    if (this.at >= this.last) this.reset();
    this.timer = setInterval(() => { if (!this.step(true)) this.pause(); }, PLAY_EVERY_MS);
    this.notice = "";
    this.draw();
  }
  pause() {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    this.draw();
  }
  lookAt(turn) {
    if (this.asking) return;
    const latest = this.frame.turn;
    turn = Math.max(0, Math.min(latest, turn));
    const look = turn === latest ? null : turn;
    if (look !== this.look) this.record(look === null ? "l" : `l${look}`);
    this.look = look;
    this.draw();
  }
  answer(pick) {
    if (!this.asking) return;
    const question = this.frame.questions[this.picks.length];
    if (pick < 0 || pick >= question.choices.length) return;
    this.keep();
    this.picks.push(pick);
    this.record(`p${pick}`);
    this.score.answered += 1;
    this.score.right += pick === question.right ? 1 : 0;
    this.draw();
  }
  setPredict(on) {
    this.predict = on;
    if (!on) this.askedAt = null;
    this.draw();
  }
  say(words) { this.notice = words; this.draw(); }

  // What an undoable action changes, kept before it: Undo comes back to it, and a new action drops what Redo had.
  state() {
    return { at: this.at, look: this.look, picks: [...this.picks], askedAt: this.askedAt, score: { ...this.score } };
  }
  keep() {
    this.undone.push(this.state());
    this.redone = [];
  }
  undo() { this.takeBack(this.undone, this.redone, "u", "undo"); }
  redo() { this.takeBack(this.redone, this.undone, "y", "redo"); }
  // Undo or Redo: of the player's own actions here; of what came before them, the server's (on the page, one
  // action that hands it what the player did as well), or on a page of its own, nothing and said so.
  takeBack(from, to, word, name) {
    this.pause();
    if (!from.length) {
      if (this.following) return; // as after a link: nothing to take back, and nothing the server is to hear
      if (!this.host) { this.say(name === "undo" ? "Nothing to undo." : "Nothing to redo."); return; }
      this.handOver(name);
      return;
    }
    to.push(this.state());
    Object.assign(this, from.pop());
    this.record(word);
    this.notice = "";
    this.draw();
  }

  // ------------------------------------------------------------ on the page: what the server is told

  // The screen's link: the server's, with what the player did since (a first visit replays both).
  linkQuery() {
    const query = new URLSearchParams(this.host.query || {});
    if (this.played.length) query.set("played", this.played.join("."));
    return query;
  }

  record(action) {
    if (!this.host) return;
    // Looks back in a row (a slider dragged, an arrow key held) are one address: the last is the one that counts.
    const again = action[0] === "l" && this.unheard && this.played.at(-1)?.[0] === "l" && !this.following;
    if (again) this.played.pop();
    this.played.push(action);
    this.unheard = true;
    if (this.following) return; // Back or Forward: the address is already there
    const query = this.linkQuery();
    const now = new URLSearchParams(window.location.search); // an embedded page stays embedded (Streamlit's own)
    for (const name of ["embed", "embed_options"]) now.getAll(name).forEach((value) => query.append(name, value));
    try { // a reload, or the address copied from the bar, replays it
      window.history[again ? "replaceState" : "pushState"]({}, "", `${window.location.pathname}?${query}`);
    } catch (error) { /* an address that cannot be written: the server keeps its own */ }
  }

  // Back or Forward put an address in the bar. One with the server's screen (and actions done in a player on it) is
  // drawn here at once, as the server follows a link: from that screen, with nothing to undo before it. Streamlit
  // runs the page as well, which finds nothing to change. Any other address the server follows (views/sandbox.py).
  followAddress() {
    if (!this.root.isConnected || this.waiting) return; // a hand-over's run draws the player anew
    const query = new URLSearchParams(window.location.search);
    const played = query.get("played");
    for (const name of ["played", "embed", "embed_options"]) query.delete(name);
    const sorted = (params) => [...params].map(([name, value]) => `${name}=${value}`).sort().join("&");
    if (sorted(query) !== sorted(new URLSearchParams(this.host.query || {}))) return;
    const actions = played ? played.split(".") : [];
    this.pause();
    Object.assign(this, this.origin, { picks: [...this.origin.picks], score: { ...this.origin.score } });
    this.undone = [];
    this.redone = [];
    this.played = [];
    this.following = true;
    try { this.replay(actions); } finally { this.following = false; }
    this.pause();
    this.unheard = this.played.length > 0;
    this.notice = "";
    this.draw();
  }

  // Copy link, in the browser: the link of the screen as it stands, with the server's notes on what a link leaves
  // out (they depend on the run's settings, which the player does not change).
  showLink() {
    const said = this.host.link;
    const url = `${window.location.origin}${window.location.pathname}?${this.linkQuery()}`;
    const box = el("pre", { class: "lsp-link", text: url });
    const copy = el("button", { type: "button", class: "lsp-primary" }, "Copy");
    const close = el("button", { type: "button", onclick: () => dialog.close() }, "Close");
    const dialog = el("dialog", { class: "lsp-dialog", "aria-label": said.title },
      el("h4", { text: said.title }), el("p", { class: "lsp-caption", text: said.says }), box,
      el("div", { class: "lsp-controls" }, copy, close),
      ...said.notes.map((note) => el("p", { class: "lsp-outcome lsp-warn", text: note })),
      el("p", { class: "lsp-caption" }, withCode(said.embed)));
    copy.addEventListener("click", () => {
      const selectIt = () => {
        window.getSelection()?.selectAllChildren(box);
        copy.textContent = "Selected: copy it with Ctrl+C (⌘C on a Mac)";
      };
      if (!navigator.clipboard) { selectIt(); return; }
      navigator.clipboard.writeText(url).then(() => { copy.textContent = "Copied"; }, selectIt);
    });
    dialog.addEventListener("close", () => dialog.remove());
    this.linkDialog = dialog;
    this.root.append(dialog);
    dialog.showModal();
  }

  // Hand the actions to the server (one rerun); returns the id the server answers with once it has them.
  flush() {
    if (!this.host || !this.unheard) return this.sentId ?? null;
    this.unheard = false;
    this.sentId = `${this.host.version}:${this.played.length}`;
    this.host.setState("played", { base: this.host.version, played: this.played.join("."), id: this.sentId });
    return this.sentId;
  }

  // A server action the player asks for, with what it did since the server's last word: one run takes both. Until
  // the server draws the player anew, what is pressed waits for that player (the run it starts may be a moment off).
  handOver(name) {
    this.unheard = false;
    this.waiting = true;
    setTimeout(() => { this.waiting = false; if (deferred.length) actDeferred(); }, HOLD_AT_MOST_MS);
    this.host.trigger(name, { base: this.host.version, played: this.played.join("."),
                              id: `${this.host.version}:${this.played.length}:${name}` });
  }
  busy() { return Boolean(this.waiting || this.host?.busy()); }

  // The actions of `played` the server drawing `data` has not taken: all of them if it took nothing of this
  // player's (it heard the page's control first), or those after the count it took.
  untaken(data) {
    if (!this.host || data.frames_key !== this.host.frames_key) return [];
    if (data.taken === this.host.taken) return this.played;
    const [version, count] = String(data.taken).split(":");
    return version === this.host.version ? this.played.slice(Number(count)) : [];
  }

  replay(actions) {
    const turn = (action) => (action === "l" ? this.frame.turn : Number(action.slice(1)));
    const act = { s: () => this.step(), e: () => this.runToEnd(), r: () => this.reset(), u: () => this.undo(),
                  y: () => this.redo(), l: (action) => this.lookAt(turn(action)),
                  p: (action) => this.answer(Number(action.slice(1))) };
    for (const action of actions) act[action[0]]?.(action);
  }

  destroy() {
    this.pause();
    const index = players.indexOf(this);
    if (index >= 0) players.splice(index, 1);
  }

  // A button's or a slider's action: on the page, while the server draws anew, it waits for the player drawn.
  act(name, ...args) {
    if (this.busy() || pageTakes || deferred.length) { // after what still waits, and a page control's run: in order
      deferred.push({ name, args, at: performance.now() });
      if (!this.busy() && !pageTakes) setTimeout(actDeferred, 0);
      return;
    }
    this[name](...args);
  }

  key(event) {
    if (this.linkDialog?.open) return false; // the dialog has the keys (Escape closes it)
    const turn = this.look ?? this.frame.turn;
    const keys = {
      s: () => this.step(), e: () => this.runToEnd(), r: () => this.reset(), " ": () => this.play(),
      z: () => this.undo(), y: () => this.redo(),
      ArrowLeft: () => this.lookAt(turn - 1), ArrowRight: () => this.lookAt(turn + 1),
      Home: () => this.lookAt(0), End: () => this.lookAt(this.frame.turn),
    };
    const name = keyName(event);
    if (/^[1-4]$/.test(name) && this.asking) { this.answer(Number(name) - 1); return true; }
    if (!keys[name]) return false;
    keys[name]();
    return true;
  }

  // ------------------------------------------------------------ the parts, built once

  build() {
    const d = this.data;
    this.root.classList.add("lsp");
    this.root.replaceChildren();
    const button = (label, key, action, title) => el("button", { type: "button", "aria-keyshortcuts": key, title,
                                                                 onclick: action }, label);
    this.stepButton = button("Step", "S", () => this.act("step"), "One turn of the loop (key S)");
    this.stepButton.classList.add("lsp-primary");
    this.playButton = button("Play", "Space", () => this.act("play"), "A Step every second until paused (Space)");
    this.endButton = button("Run to end", "E", () => this.act("runToEnd"), "Step until the loop stops, without questions (E)");
    this.resetButton = button("Reset", "R", () => this.act("reset"), "The run again from the start (R)");
    this.undoButton = button("Undo", "Z", () => this.act("undo"), "Take back the last action (Z)");
    this.redoButton = button("Redo", "Y", () => this.act("redo"), "Take the undone action again (Y)");
    // On Start here's page the player has Copy link too (All controls has the page's own, in the sidebar).
    this.linkButton = this.host?.link ? button("Copy link", null, () => this.showLink(), this.host.link.help) : null;
    this.predictBox = el("input", { type: "checkbox", onchange: (e) => this.setPredict(e.target.checked) });
    this.scoreLine = el("span", { class: "lsp-score", "aria-live": "polite" });
    this.slider = el("input", { type: "range", min: "0", step: "1", "aria-label": "Turn looked at",
                                oninput: (e) => this.act("lookAt", Number(e.target.value)) });
    this.progress = el("progress", { max: "1", "aria-label": "Turns taken of the turn limit" });
    this.status = el("span", { class: "lsp-status-text" });
    this.lookCaption = el("p", { class: "lsp-caption" });
    this.noticeBox = el("p", { class: "lsp-notice", role: "status" });
    this.outcomeBox = el("div", { class: "lsp-outcome", role: "status" });
    this.cardBox = el("section", { class: "lsp-card", "aria-label": "The turn" });
    this.questionBox = el("div", { class: "lsp-question" });
    this.loopBox = el("div", { class: "lsp-loop" });
    this.graphBox = el("div", { class: "lsp-graph", "aria-label": "The run so far" });
    this.consoleBox = el("pre", { class: "lsp-console" });
    this.messagesCaption = el("p", { class: "lsp-caption" });
    this.messagesBox = el("div", { class: "lsp-messages" });
    this.requestBox = el("pre", { class: "lsp-json" });
    this.replyBox = el("pre", { class: "lsp-json" });
    const requestDetails = el("details", {}, el("summary", { text: "The exact request (JSON)" }), this.requestBox);
    const replyDetails = el("details", {}, el("summary", { text: "The reply as it came back (JSON)" }), this.replyBox);
    this.jsonParts = [requestDetails, replyDetails];
    for (const part of this.jsonParts) part.addEventListener("toggle", () => this.drawJson());
    const onPage = Boolean(this.host);
    this.nextBox = el("div", { class: "lsp-next" });
    players.push(this);
    bindKeys();
    this.root.addEventListener("pointerdown", () => { players.splice(players.indexOf(this), 1); players.push(this); });
    if (this.allControls) { this.buildAllControls(); return; }
    this.root.append(
      onPage ? "" : el("header", { class: "lsp-head" },
        el("h3", { text: d.title }),
        d.scenario ? el("p", { class: "lsp-about" }, el("strong", { text: d.scenario }), " " + d.watch) : null,
        d.about && !d.scenario ? el("p", { class: "lsp-about", text: d.about }) : null,
        el("p", { class: "lsp-caption", text: d.model_words }),
        el("div", { class: "lsp-task" }, el("span", { class: "lsp-label", text: "Task" }),
           el("pre", { text: d.task || "(no task)" }))),
      el("div", { class: "lsp-controls", role: "toolbar", "aria-label": "Step the loop" },
        this.stepButton, this.playButton, this.endButton, this.resetButton, this.undoButton, this.redoButton,
        this.linkButton,
        onPage ? null : el("label", { class: "lsp-switch" }, this.predictBox, " Predict each turn"), this.scoreLine),
      el("div", { class: "lsp-status" }, this.progress, this.status),
      el("div", { class: "lsp-look" }, el("span", { class: "lsp-label", text: "Look back" }), this.slider),
      this.lookCaption, this.noticeBox, this.outcomeBox, this.nextBox,
      el("div", { class: "lsp-two" },
        this.cardBox,
        el("div", {}, el("h4", { text: "The loop" }), this.loopBox, el("h4", { text: "The run so far" }),
           this.graphBox)),
      onPage ? "" : el("div", { class: "lsp-two" },
        el("section", { "aria-label": "Console" }, el("h4", { text: "Console" }), this.consoleBox, ...this.jsonParts),
        el("section", { "aria-label": "Messages" }, el("h4", { text: "Messages" }), this.messagesCaption,
           this.messagesBox)),
      onPage ? "" : el("p", { class: "lsp-caption lsp-keys", text: "Keys: S Step · Space play or pause · E Run to end · R Reset · " +
                                                    "← → one turn back or forward · Home End the first or last turn · " +
                                                    "1–4 answer · Z Undo · Y Redo" }));
  }

  // All controls on the page: the step row, the question, then the view the page's picker chose (Run, The loop,
  // Messages), each as the page's own view draws it (views/run_tabs.py), from the frames' words for it.
  buildAllControls() {
    const view = this.host.view;
    this.askBox = el("div", { class: "lsp-ask" }, this.cardBox, this.questionBox);
    this.root.append(
      el("div", { class: "lsp-controls", role: "toolbar", "aria-label": "Step the loop" },
        this.stepButton, this.playButton, this.endButton, this.resetButton, this.undoButton, this.redoButton,
        this.scoreLine),
      el("div", { class: "lsp-status" }, this.progress, this.status),
      this.noticeBox, this.outcomeBox, this.askBox,
      el("div", { class: "lsp-look" }, el("span", { class: "lsp-label", text: "Look back" }), this.slider),
      this.lookCaption);
    if (view === "Run") {
      this.usageLine = el("p", { class: "lsp-caption" });
      this.detailsBox = el("div", { class: "lsp-details" });
      this.root.append(el("div", { class: "lsp-run" },
        el("section", { "aria-label": "The run graph" }, this.graphBox),
        el("section", { "aria-label": "Console" }, el("h5", { text: "Console" }), this.consoleBox, this.usageLine,
           this.detailsBox)));
    } else if (view === "The loop") {
      this.loopCaption = el("p", { class: "lsp-caption" });
      this.diagramBox = el("div", { class: "lsp-diagram", "aria-label": "The loop's cycle" });
      this.root.append(el("section", { "aria-label": "The loop" }, this.loopCaption, this.loopBox, this.diagramBox));
    } else if (this.host.chat) { // Chat Completions beside the array, row by row, as the page's own view has it
      const row = (cells, tag) => el("tr", {}, ...cells.map((cell) => el(tag, {}, withCode(cell))));
      const [head, ...rows] = this.data.chat_differences;
      const differences = el("table", { class: "lsp-differences" },
        el("thead", {}, row(head, "th")), el("tbody", {}, ...rows.map((cells) => row(cells, "td"))));
      this.chatBox = el("div", { class: "ls-chat-pairs" });
      this.root.append(el("section", { "aria-label": "Messages" }, this.messagesCaption, differences, this.chatBox));
    } else {
      this.arrayBox = el("pre", { class: "lsp-json" });
      this.arrayDetails = el("details", {}, el("summary", { text: "The whole array, exactly as sent (JSON)" }),
                             this.arrayBox);
      this.arrayDetails.addEventListener("toggle", () => this.drawArray());
      this.root.append(el("section", { "aria-label": "Messages" }, this.messagesCaption, this.messagesBox,
                          this.arrayDetails));
    }
  }
  get allControls() { return this.host?.layout === "all"; }

  // ------------------------------------------------------------ drawing a frame

  draw() {
    if (this.following) return; // replaying to an address: drawn once, at its end
    const asking = this.asking;
    const latest = this.frame;
    const shownTurn = this.look ?? latest.turn;
    const shown = this.look === null ? latest : this.frames[this.frameOfTurn(this.look)];
    this.stepButton.disabled = asking;
    this.endButton.disabled = asking;
    this.playButton.textContent = this.timer ? "Pause" : "Play";
    this.playButton.setAttribute("aria-pressed", this.timer ? "true" : "false");
    this.predictBox.checked = this.predict;
    this.scoreLine.textContent = !this.predict ? "" : this.score.answered ?
      `Predictions: ${this.score.right} right of ${this.score.answered}` : "No predictions yet";
    const before = asking ? this.frames[this.at - 1] : latest;
    this.progress.value = asking ? before.progress : latest.progress;
    this.status.textContent = asking ? latest.asking_status : latest.status;
    this.slider.max = String(asking ? before.turn : latest.turn);
    this.slider.value = String(asking ? before.turn : shownTurn);
    this.slider.disabled = asking || latest.turn === 0;
    this.lookCaption.textContent = this.look === null || asking ? "" :
      `Looking back at turn ${this.look} of ${latest.turn}. Step and Run to end carry on from turn ${latest.turn}.`;
    this.noticeBox.textContent = this.notice;
    this.noticeBox.hidden = !this.notice;
    this.drawOutcome(asking ? null : latest.outcome);
    if (this.allControls) {
      this.drawAllControls(asking ? before : shown, asking, asking ? before.turn : shownTurn);
      return;
    }
    this.drawNext(!asking && this.at === this.last && Boolean(latest.outcome));
    this.drawCard(shown, asking);
    this.drawQuestion(asking);
    this.loopBox.replaceChildren(...this.parsed(asking ? latest.asking_loop : shown.loop));
    this.drawGraph(asking ? this.at - 1 : this.look === null ? this.at : this.frameOfTurn(this.look),
                   this.look !== null);
    const consoleFrame = asking ? before : shown;
    this.consoleBox.textContent = consoleFrame.console.join("\n") || "(nothing printed yet)";
    if (this.host) return; // the page draws no console or messages list under its player
    this.drawMessages(asking ? before : shown, asking ? before.turn : shownTurn);
    this.drawJson();
    // The console and the messages follow the newest turn; looking back, the messages open where that turn's are.
    this.consoleBox.scrollTop = this.consoleBox.scrollHeight;
    const marked = this.messagesBox.querySelector(".ls-new");
    this.messagesBox.scrollTop = marked ? marked.offsetTop - this.messagesBox.offsetTop : 0;
  }

  // All controls: the turn's card only while its question is open (then the verdicts), and the view picked, of
  // `frame` (while a question is open, the frame before it: the turn's outcome waits for the answer).
  drawAllControls(frame, asking, turn) {
    this.cardBox.hidden = !asking;
    if (asking) this.drawCard(this.frame, true);
    else this.askBox.append(this.questionBox);
    this.drawQuestion(asking);
    const view = this.host.view;
    if (view === "Run") {
      this.drawGraph(asking ? this.at - 1 : this.look === null ? this.at : this.frameOfTurn(this.look),
                     this.look !== null || asking);
      this.consoleBox.textContent = frame.console.join("\n");
      this.consoleBox.scrollTop = this.consoleBox.scrollHeight;
      this.usageLine.textContent = frame.details.usage_total;
      this.usageLine.hidden = !frame.details.usage_total;
      this.drawDetails(frame, turn);
    } else if (view === "The loop") {
      this.loopCaption.replaceChildren(withCode(frame.loop_caption));
      this.loopBox.replaceChildren(...this.parsed(frame.loop));
      this.drawDiagram(frame.path);
    } else if (this.host.chat) {
      this.drawChat(frame);
    } else {
      this.drawMessages(frame, turn);
      this.drawArray(frame);
    }
  }

  // Each message's row beside Chat Completions, those `frame` holds, its turn's own marked; then its latest reply's
  // stop_reason beside the finish_reason.
  drawChat(frame) {
    const [start, stop] = frame.new;
    this.messagesCaption.replaceChildren(withCode(frame.messages_caption));
    this.chatRows ||= this.data.chat_rows.map((html) => {
      const row = el("div", { html }).firstElementChild;
      row.card = row.querySelector(".ls-msg");
      if (row.card) row.card.badge = el("span", { class: "ls-badge" });
      return row;
    });
    const rows = this.chatRows.filter((row) => row.dataset.row === "head" || row.dataset.row === "system" ||
                                                Number(row.dataset.row) < frame.messages);
    for (const row of rows) {
      const index = Number(row.dataset.row);
      const fresh = index >= start && index < stop;
      if (row.card) this.marked(row.card, fresh ? "new" : "");
      row.querySelectorAll(".ls-oa").forEach((card) => card.classList.toggle("ls-new", fresh));
    }
    this.chatBox.replaceChildren(...rows, ...this.parsed(frame.chat_finish));
  }

  // The Run view's turn: its heading, what it sent, what came back, the usage, the messages it added, the JSON.
  drawDetails(frame, turn) {
    const said = frame.details;
    const box = this.detailsBox;
    box.replaceChildren();
    if (said.failures && this.look === null) box.append(el("p", { class: "lsp-caption", text: said.failures }));
    box.append(el("h5", { text: said.heading }));
    if (!frame.request) {
      box.append(el("p", {}, withCode(this.look === 0 && this.data.start_looked_back || said.said)),
                 this.messageCard(0, ""));
      return;
    }
    for (const attempt of said.attempts) box.append(el("p", { class: "lsp-outcome lsp-warn" }, withCode(attempt)));
    box.append(el("p", {}, withCode(said.said)), el("p", {}, withCode(said.came_back)));
    if (said.thread_note) box.append(el("p", { class: "lsp-caption", text: said.thread_note }));
    if (frame.reply) {
      box.append(el("p", { class: "lsp-caption", text: said.cost_line }));
      for (let i = frame.new[0]; i < frame.new[1]; i++) box.append(this.messageCard(i, `new in turn ${turn}`));
    }
    box.append(...this.jsonParts);
    this.drawJson(frame);
  }

  drawDiagram(path) {
    const dot = this.data.diagrams[path];
    this.diagrams ||= new Map();
    if (!this.diagrams.has(path)) this.diagrams.set(path, viz().then((v) => v.renderSVGElement(dot)));
    this.diagramWanted = path;
    this.diagrams.get(path).then((svg) => {
      if (this.diagramWanted !== path) return;
      svg.setAttribute("role", "img");
      svg.setAttribute("aria-label", "The loop's cycle, the way this turn went lit");
      const drawn = svg.cloneNode(true);
      this.diagramBox.replaceChildren(drawn);
      if (fitTexts(drawn)) this.diagrams.set(path, Promise.resolve(drawn.cloneNode(true)));
      // Wider than its box: it opens with the loop's start in view, as the page's own cycle does (page_js.py).
      const start = [...drawn.querySelectorAll("g.node")]
        .find((node) => node.querySelector("title")?.textContent === "start");
      if (start && !this.diagramOpened) {
        this.diagramOpened = true;
        const box = this.diagramBox.getBoundingClientRect(), node = start.getBoundingClientRect();
        this.diagramBox.scrollLeft += node.left + node.width / 2 - (box.left + this.diagramBox.clientWidth / 2);
      }
    }, () => this.diagramBox.replaceChildren(el("p", { class: "lsp-caption", text: "The diagram cannot be drawn " +
      "in this browser (it needs WebAssembly); the lit lines above say the same." })));
  }

  drawArray(frame = null) {
    if (frame) this.arrayFrame = frame;
    if (!this.arrayDetails.open || !this.arrayFrame) return;
    this.arrayBox.textContent = JSON.stringify(this.data.messages.slice(0, this.arrayFrame.messages), null, 2);
  }

  // On the page, at the run's end: the lesson's next scenario (a server action), or the path's end.
  drawNext(ended) {
    const next = this.host?.next;
    if (!this.host || !ended) { this.nextBox.replaceChildren(); return; }
    if (this.nextBox.firstChild) return;
    this.nextBox.append(next ?
      el("button", { type: "button", class: "lsp-primary", onclick: () => this.handOver("next_scenario") },
         `Next scenario: ${next}`) :
      el("p", { class: "lsp-caption", text: "That was the path's last scenario. All controls opens the rest of the page." }));
  }

  drawOutcome(outcome) {
    this.outcomeBox.replaceChildren();
    this.outcomeBox.hidden = !outcome;
    if (!outcome) return;
    const answer = outcome.kind === "answer";
    this.outcomeBox.className = `lsp-outcome ${answer ? "lsp-good" : "lsp-warn"}`;
    this.outcomeBox.append(el("strong", { text: answer ? `Answer: ${outcome.headline}` : outcome.headline }),
                           el("br"), withCode(outcome.note));
  }

  drawCard(frame, asking) {
    const card = frame.card;
    const box = this.cardBox;
    box.replaceChildren(el("h4", { text: card.heading }));
    if (card.sent) box.append(el("p", {}, el("strong", { text: "Sent: " }), withCode(card.sent)));
    if (card.reply === null) {
      box.append(el("p", {}, withCode(card.came_back)));
      if (frame.turn === 0) box.append(this.messageCard(0, ""));
      return;
    }
    box.append(el("p", {}, el("strong", { text: "Came back: " }), withCode(card.came_back)));
    for (const term of asking ? frame.asking_terms : card.terms) box.append(el("p", { class: "lsp-caption", text: term }));
    box.append(this.messageCard(card.reply, "reply"), this.questionBox);
    if (asking) return;
    box.append(el("p", {}, withCode(card.appended)));
    for (const index of card.results) box.append(this.messageCard(index, "new"));
  }

  // HTML of the frames (the lit loop), parsed once each: a Step moves nodes rather than parse them again.
  parsed(html) {
    this.parsedHtml ||= new Map();
    if (!this.parsedHtml.has(html)) this.parsedHtml.set(html, [...el("div", { html }).childNodes]);
    return this.parsedHtml.get(html);
  }

  // Each message's card, parsed once: the list reuses these nodes, the turn's card takes copies.
  cardNode(index) {
    this.cardNodes ||= [];
    if (!this.cardNodes[index]) {
      const holder = el("div", { html: this.data.cards[index] });
      const card = holder.firstElementChild || holder;
      card.badge = el("span", { class: "ls-badge" });
      this.cardNodes[index] = card;
    }
    return this.cardNodes[index];
  }

  marked(card, badge) {
    card.classList.toggle("ls-new", Boolean(badge));
    if (!badge) card.badge.remove();
    else if (card.badge.textContent !== badge || !card.badge.isConnected) {
      card.badge.textContent = badge;
      card.querySelector(".ls-head")?.append(card.badge);
    }
    return card;
  }

  messageCard(index, badge) {
    const copy = this.cardNode(index).cloneNode(true);
    copy.badge = copy.querySelector(".ls-badge") || el("span", { class: "ls-badge" });
    return this.marked(copy, badge);
  }

  drawQuestion(asking) {
    const box = this.questionBox;
    box.replaceChildren();
    const frame = this.frame;
    const questions = this.predict && this.askedAt === this.at ? frame.questions || [] : [];
    this.picks.forEach((pick, i) => {
      const q = questions[i];
      if (!q) return;
      box.append(el("p", { class: `lsp-verdict ${pick === q.right ? "lsp-good" : "lsp-warn"}`, role: "status" },
                    withCode(q.verdicts[pick])));
      if (!asking && q.line) {
        box.append(el("p", { class: "lsp-caption" }, `run_agent ${q.did} at `, el("code", { text: q.line }),
                      this.allControls && this.host.view !== "The loop" ? " (lit in The loop view)." :
                        this.allControls ? " (lit in the loop below)." : " (lit under The loop)."));
      }
    });
    if (!asking) return;
    const q = questions[this.picks.length];
    const group = el("div", { class: "lsp-choices", role: "group", "aria-label": q.prompt },
      el("p", {}, el("strong", {}, withCode(q.prompt))));
    q.choices.forEach((choice, i) => group.append(
      el("button", { type: "button", "aria-keyshortcuts": String(i + 1), onclick: () => this.act("answer", i) },
         `${i + 1}. ${choice}`)));
    box.append(group);
  }

  drawMessages(frame, turn) {
    const [start, stop] = frame.new;
    this.messagesCaption.replaceChildren(withCode(frame.messages_caption));
    // The task and the latest turns' messages as cards; those between, a line each (a long run's list stays quick).
    const cut = frame.first_card;
    const cards = [this.marked(this.cardNode(0), start === 0 && stop > 0 ? "new" : "")];
    if (cut > 1) {
      this.olderList ||= el("pre", { class: "lsp-console" });
      this.olderList.textContent = this.data.lines.slice(1, cut).join("\n");
      this.olderSummary ||= el("summary");
      this.olderSummary.textContent = `messages[1]–[${cut - 1}], one line each`;
      this.older ||= el("details", {}, this.olderSummary, this.olderList);
      cards.push(this.older);
    }
    for (let i = cut; i < frame.messages; i++) cards.push(this.marked(this.cardNode(i), i >= start && i < stop ? "new" : ""));
    this.messagesBox.replaceChildren(...cards);
  }

  drawJson(shown = null) {
    if (shown) this.jsonFrame = shown;
    const frame = this.allControls ? this.jsonFrame :
      this.look === null ? this.frame : this.frames[this.frameOfTurn(this.look)];
    if (!frame) return;
    const [requestDetails, replyDetails] = this.jsonParts;
    requestDetails.hidden = !frame.request;
    replyDetails.hidden = !frame.reply;
    if (requestDetails.open && frame.request) {
      const request = { ...frame.request };
      if (Array.isArray(request.messages) && typeof request.messages[0] === "number") {
        request.messages = this.data.messages.slice(request.messages[0], request.messages[1]);
      }
      this.requestBox.textContent = JSON.stringify(request, null, 2);
    }
    if (replyDetails.open && frame.reply) this.replyBox.textContent = JSON.stringify(frame.reply, null, 2);
  }

  // ------------------------------------------------------------ the graph

  graphOf(index, back) {
    const key = `${index}:${back ? 1 : 0}`;
    if (!this.svgs.has(key)) {
      const dot = this.dotOf(this.frames[index], back);
      this.svgs.set(key, viz().then((v) => v.renderSVGElement(dot)));
    }
    return this.svgs.get(key);
  }

  // A frame's run graph: its latest turns, or with All controls' Every turn, all of them (the lines it shares with
  // the last frame's graph, then its own).
  dotOf(frame, back) {
    if (!this.host?.whole) return back ? frame.graph_back : frame.graph;
    const [kept, own] = back ? frame.graph_whole_back : frame.graph_whole;
    return [...this.data.graph_lines.slice(0, kept), ...own].join("\n");
  }

  drawGraph(index, back) {
    const wanted = `${index}:${back ? 1 : 0}`;
    this.graphWanted = wanted;
    this.graphOf(index, back).then((svg) => {
      if (this.graphWanted !== wanted) return;
      svg.setAttribute("role", "img");
      svg.setAttribute("aria-label", "The run graph: ask, the tool calls, ask again, the outcome");
      this.graphBox.replaceChildren(svg.cloneNode(true));
      const drawn = this.graphBox.firstChild;
      if (fitTexts(drawn)) this.svgs.set(wanted, Promise.resolve(drawn.cloneNode(true)));
      // The newest turn is at the bottom; with every turn drawn, the box stays where it is (at first the top,
      // where the turns Every turn brought back are).
      if (!this.host?.whole) this.graphBox.scrollTop = this.graphBox.scrollHeight;
    }, () => {
      this.graphBox.replaceChildren(el("p", { class: "lsp-caption", text: "The graph cannot be drawn in this " +
        "browser (it needs WebAssembly); the console and the cards say the same." }));
    });
  }

  // Every frame's graph laid out ahead, when the browser is idle: a Step then only swaps an SVG in. The Steps to come
  // first, from the one on screen on, then the rest and each as looked back at.
  prerender() {
    const idle = window.requestIdleCallback || ((fn) => setTimeout(fn, 30));
    const laidOut = (index, back) => this.svgs.has(`${index}:${back ? 1 : 0}`);
    const nextOne = () => {
      for (let i = this.at + 1; i < this.frames.length; i++) if (!laidOut(i, false)) return [i, false];
      for (let i = 0; i < this.frames.length; i++) {
        for (const back of [false, true]) if (!laidOut(i, back)) return [i, back];
      }
      return null;
    };
    const next = () => {
      const item = nextOne();
      if (!item) return;
      this.graphOf(...item).then(() => idle(next), () => {});
    };
    idle(next);
  }
}

// Draw `data` (a run's frames) into `root`; returns the player, whose methods are its buttons.
export function mount(root, data) {
  return new Player(root, data);
}

// The Streamlit page's custom component (v2). Its data is [{frames_key, start, query, next, version, taken,
// page}] (views/player_view.py): the same version keeps the player where the learner took it; a new one (after a
// server action) starts it afresh, where the server's run stands, and lets go of a click held for the server.
export function mountOnPage(component) {
  const [said] = component.data;
  const frames = framesHeld().get(said.frames_key);
  // Not here yet: mounted when they come (by this module's own mountWith: its keys and held clicks).
  if (!frames) {
    framesAwaited().set(said.frames_key, (came) => mountWith(component, said, came));
    // The host sends them once a page: a page that has lost them asks again, if they do not come on their own.
    setTimeout(() => {
      if (framesAwaited().has(said.frames_key)) component.setTriggerValue("frames_wanted", true);
    }, FRAMES_GRACE_MS);
    return;
  }
  mountWith(component, said, frames);
}

// The frames come in an element of their own that stays the same while the run's settings do (Streamlit then
// sends it once and a reference after): a server action resends only where the run stands. Its component loads
// this file as a module of its own, so what the two share is on globalThis.
const FRAMES_GRACE_MS = 1500;
const framesHeld = () => (globalThis.loopSandboxFrames ||= new Map());
const framesAwaited = () => (globalThis.loopSandboxFramesAwaited ||= new Map());
export function holdFrames({ data }) {
  // The frames' JSON as bytes (views/player_view.py): read once for each run's settings.
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data.buffer || data);
  if (framesHeld().lastBytes === bytes) return;
  framesHeld().lastBytes = bytes;
  const frames = JSON.parse(new TextDecoder().decode(bytes));
  const held = framesHeld();
  if (held.size > 8) held.clear(); // a long session's many runs: only the latest are still drawn
  held.set(frames.key, frames);
  const mount = framesAwaited().get(frames.key);
  framesAwaited().delete(frames.key);
  if (mount) mount(frames);
}

let onPage = null;
function mountWith(component, said, frames) {
  const { parentElement, setTriggerValue, setStateValue } = component;
  const data = { ...said, frames };
  let root = parentElement.querySelector(".lsp");
  if (!root) {
    root = document.createElement("div");
    root.className = "lsp";
    parentElement.append(root);
  }
  if (root.player?.version !== data.version) {
    if (pageTakes) pageRunEnded(); // the run the click started has drawn the player anew
    // What the learner did on the player on screen that the server has not taken (pressed after a click on the
    // page's own controls, before the server answered) is done again on the player it draws: nothing is lost.
    const again = onPage?.untaken(data) || [];
    players.filter((p) => p.host).forEach((p) => p.destroy());
    page = data.page;
    watchPage();
    const drawn = `.${page.version}${data.version}`;
    root.player = new Player(root, data.frames, { ...data, trigger: setTriggerValue, setState: setStateValue,
                                                  busy: () => pageBusy() || !document.querySelector(drawn) });
    root.player.version = data.version;
    onPage = root.player; // kept when the page takes its element away: what it did may still be to do again
    root.player.replay(again);
  }
  if (heldClick && (heldClick.id === null || heldClick.id === data.taken)) setTimeout(releaseClick, 0);
  if (deferred.length) setTimeout(actDeferred, 0);
}

// Whether Streamlit is running the page's script (a server action in flight); and when it stops, what waited
// goes to the player then on screen (a run with the same frames draws no new one).
// The host page's own marks, as views/player_view.py names them: where it says it is running, the class prefix of
// its controls, the class of the player's container that carries the player's version, the name of its
// function that presses a key's widget, a control's help mark, and an element a run has not drawn again (yet).
let page = null;
function pageBusy() {
  return Boolean(page) && document.querySelector(page.app)?.getAttribute(page.state) === "running";
}
let watching = false;
function watchPage() {
  const app = page && document.querySelector(page.app);
  if (watching || !app) return;
  watching = true;
  new MutationObserver((records) => {
    for (const record of records) { // each start and end, however short the run
      if (!pageTakes) break;
      if (record.oldValue !== "running") pageTakes.started = true;
      else if (pageTakes.started) pageRunEnded();
    }
    if (!pageBusy() && deferred.length) setTimeout(actDeferred, 150);
  }).observe(app, { attributes: true, attributeOldValue: true, attributeFilter: [page.state] });
}
