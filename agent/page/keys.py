"""The sandbox's keyboard: Step, Run to end, Reset and the look-back moves, each on a key.

Streamlit-free: `views/sandbox.py` draws `KEYS_JS` once (st.html with its script, run in the page itself:
nothing to install, nothing fetched) and `KEYS_CAPTION` under the step row. A key presses the button it
names, found by the button's Streamlit key (`.st-key-<key>`), so a key does exactly what the click does.
Keys are left alone while a text box, a select or anything editable has the focus, or with Ctrl, Alt or
Meta held: typing a task never steps the loop. A focused slider or view picker keeps the letter keys working.
"""

from __future__ import annotations

import json

KEYS: list[tuple[str, str, str]] = [
    # (what the page shows, the key's `KeyboardEvent.key` values joined by "|", the widget's Streamlit key)
    ("S", "s|S", "step"),
    ("E", "e|E", "run_to_end"),
    ("R", "r|R", "reset"),
    ("Z", "z|Z", "undo"),
    ("Y", "y|Y", "redo"),
    ("←", "ArrowLeft", "look_back"),
    ("→", "ArrowRight", "look_back"),
    ("Home", "Home", "look_back"),
    ("End", "End", "look_back"),
    ("1", "1", "choice_0"),  # Predict, then Step: the choices of the question open
    ("2", "2", "choice_1"),
    ("3", "3", "choice_2"),
    ("4", "4", "choice_3"),
]
KEY_OF = {widget: shown for shown, _, widget in KEYS if widget != "look_back"}  # shown in a button's tooltip
START_KEYS_CAPTION = ("Keys: **S** Step · **E** Run to end · **R** Reset · **1**–**4** pick an answer · **Z** Undo · "
                      "**Y** Redo (while no text box has the focus)")

KEYS_CAPTION = ("Keys: **S** Step · **E** Run to end · **R** Reset · **Z** Undo · **Y** Redo · **←** **→** one turn "
                "back or forward · "
                "**Home** **End** the first or the last turn (while no text box has the focus)")

KEYS_JS = """
<script>
(() => {
  if (window.__loopSandboxKeys) return;
  window.__loopSandboxKeys = true;
  const widgets = {};
  for (const [, names, widget] of __KEYS__) for (const name of names.split("|")) widgets[name] = widget;
  const typing = (element) => element && (element.isContentEditable
    || ["INPUT", "TEXTAREA", "SELECT"].includes(element.tagName)
    || ["slider", "combobox", "listbox", "textbox", "option"].includes(element.getAttribute("role")));
  const onSlider = (element) => element && element.getAttribute
    && (element.getAttribute("role") === "slider" || (element.tagName === "INPUT" && element.type === "range"));
  const inPicker = (element) => element && element.closest && element.closest(".st-key-tab");
  // A key, or a click on a button a key presses or on one of Change the past's, is taken when the page has drawn
  // the run before it: one that comes while a run is in flight (a Step's, or one a slow server has not started
  // yet) waits for it, so 2 pressed just after S answers the question S's run draws, and five quick clicks on
  // Step are five Steps (Streamlit would fold a click on a button into one still waiting for the server). After
  // a press, the next goes once its run is seen to end; a run too short to be seen, once the next one's widget
  // is on the page a moment later; at most WAIT_MS on.
  const SETTLE_MS = 250, WAIT_MS = 3000;
  const buttons = new Set(Object.values(widgets).filter((widget) => widget !== "look_back"));
  const queue = [];
  let pressedAt = null, sawRun = false, poll = null;
  const running = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    return Boolean(app && app.dataset.testScriptState === "running");
  };
  const widgetOf = (name) => name && document.querySelector(`.st-key-${CSS.escape(name)}`);
  const take = ({widget: name, key, code}) => {
    const widget = widgetOf(name);
    const slider = widget && widget.querySelector('input[type="range"]');
    const button = widget && widget.querySelector('button[data-testid^="stBaseButton"]');
    if (slider && key) {
      // The look-back keys move the slider as its own keys do: the same key, given to its thumb.
      for (const type of ["keydown", "keyup"]) {
        slider.dispatchEvent(new KeyboardEvent(type, {key, code, bubbles: true}));
      }
      return true;
    }
    if (button && !button.disabled) {
      button.click();
      return true;
    }
    return false;  // not on this screen (a choice once its question is answered): nothing to press
  };
  const ready = () => {
    if (running()) { sawRun = true; return false; }
    if (pressedAt === null || sawRun) return true;
    const waited = performance.now() - pressedAt;
    return waited >= WAIT_MS || (waited >= SETTLE_MS && queue.length > 0 && Boolean(widgetOf(queue[0].widget)));
  };
  const watch = () => {
    const idle = pressedAt === null && queue.length === 0;
    if (idle && poll !== null) { clearInterval(poll); poll = null; }
    if (!idle && poll === null) poll = setInterval(next, 50);
  };
  const next = () => {
    if (ready()) {
      pressedAt = null;
      while (queue.length) {
        if (take(queue.shift())) { pressedAt = performance.now(); sawRun = false; break; }
      }
    }
    watch();
  };
  const busy = () => pressedAt !== null || running() || queue.length > 0;
  new MutationObserver((records) => {
    // A short run can start and end between two looks: its record still says it was running.
    if (records.some((record) => record.oldValue === "running")) sawRun = true;
  }).observe(document.documentElement, {subtree: true, attributes: true, attributeOldValue: true,
                                        attributeFilter: ["data-test-script-state"]});
  // In the capture phase, before the widget with the focus: a view picked by a click keeps the focus, and its
  // own arrow keys would move between views, not turns.
  document.addEventListener("keydown", (event) => {
    if (!event.isTrusted || event.ctrlKey || event.altKey || event.metaKey || event.repeat) return;
    const active = document.activeElement;
    const turnKey = widgets[event.key] === "look_back";
    // A focused slider moves itself on its own keys; the letters still reach their buttons.
    if (onSlider(active) ? turnKey : typing(active) && !inPicker(active)) return;
    const widget = widgets[event.key];
    if (!widget || (!busy() && !widgetOf(widget))) return;  // not a key of this screen
    event.preventDefault();
    event.stopPropagation();  // R is Streamlit's own rerun key too: one press, one Reset
    queue.push({widget, key: event.key, code: event.code});
    next();
  }, true);
  // A click on one of those buttons: at once when nothing is in flight (and what follows waits for its run),
  // else in its turn. Before Streamlit's own handler, which is on the page's root, below the document.
  document.addEventListener("click", (event) => {
    if (!event.isTrusted || event.button !== 0 || !(event.target instanceof Element)) return;
    const button = event.target.closest('button[data-testid^="stBaseButton"]');
    const holder = button && button.closest('[class*="st-key-"]');
    const widget = holder && [...holder.classList].find((name) => name.startsWith("st-key-"))?.slice(7);
    // Change the past's own buttons (a fork, a fault's Step, an edit, a reply by hand) take their turn too; its
    // uploaders and downloads are no rerun's business.
    const panel = button && button.closest('[data-testid="stButton"]') && button.closest(".st-key-change_the_past");
    if (!buttons.has(widget) && !(widget && panel)) return;
    if (!busy()) {
      pressedAt = performance.now();
      sawRun = false;
      watch();
      return;
    }
    event.preventDefault();
    event.stopPropagation();
    queue.push({widget});
    next();
  }, true);
})();
</script>
""".replace("__KEYS__", json.dumps(KEYS))


LAYOUT_STORE = "loop-sandbox-controls"  # the browser's localStorage key for the layout last used
RUN_STORE = "loop-sandbox-run"  # the tab's sessionStorage key for the sandbox's latest address (its run's link)
RESTORED = "restored"  # the query word a bare visit carries when this tab's run was put back into its address


def remember_layout_js(layout_word: str, bare_visit: bool) -> str:
    """The browser remembers the layout last used (Start here or All controls), and each tab the sandbox's latest
    address, which is its run's link (sessionStorage: this tab only, until it is closed).

    A reload anywhere starts a new Streamlit session, and the sandbox's own address alone brings its run back. A
    bare first visit (no link) in a tab whose sandbox had a run opens that address again (with `restored=tab`,
    so the page can say what happened); otherwise someone whose last layout was All controls gets All controls:
    the page reloads once with `controls=all`.
    """
    return """
<script>
(() => {
  const layout = __LAYOUT__, bare = __BARE__, key = __KEY__, runKey = __RUN_KEY__, restored = __RESTORED__;
  let tab = null;
  try { tab = window.sessionStorage; } catch (e) {}  // storage off: a reload elsewhere loses the run, as before
  // The navigation has two pages: Write your loop's path ends in its name; any other is the sandbox's.
  const onSandbox = () => !/\\/write-your-loop\\/?$/.test(window.location.pathname);
  const keep = () => {
    if (!tab || !onSandbox() || !new URLSearchParams(window.location.search).has("model")) return;
    try { tab.setItem(runKey, window.location.search); } catch (e) {}
  };
  if (tab && !window.__loopSandboxRunKept) {
    // Streamlit writes each new address with pushState or replaceState: every one the sandbox writes is kept.
    window.__loopSandboxRunKept = true;
    for (const name of ["pushState", "replaceState"]) {
      const original = window.history[name];
      window.history[name] = function (...args) {
        const result = original.apply(this, args);
        keep();
        return result;
      };
    }
  }
  let saved = null;
  try { saved = tab && tab.getItem(runKey); } catch (e) {}
  if (bare && saved) {
    const address = new URL(window.location.href), query = new URLSearchParams(saved);
    for (const name of ["embed", "embed_options"]) {  // Streamlit's own: a page inside another site stays so
      for (const value of address.searchParams.getAll(name)) query.append(name, value);
    }
    query.set(restored, "tab");
    address.search = "?" + query.toString();
    window.location.replace(address.toString());
    return;
  }
  keep();
  let remembered = null;
  try { remembered = window.localStorage.getItem(key); } catch (e) { return; }  // storage off: Start here each time
  if (bare && layout === "start" && remembered === "all") {
    const address = new URL(window.location.href);
    address.search = "?controls=all";
    window.location.replace(address.toString());
    return;
  }
  try { window.localStorage.setItem(key, layout); } catch (e) {}
})();
</script>
""".replace("__LAYOUT__", json.dumps(layout_word)).replace("__BARE__", json.dumps(bare_visit)).replace(
        "__KEY__", json.dumps(LAYOUT_STORE)).replace("__RUN_KEY__", json.dumps(RUN_STORE)).replace(
        "__RESTORED__", json.dumps(RESTORED))
