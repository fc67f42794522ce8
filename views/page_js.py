"""The page's scripts: what the learner's keys and clicks do in Streamlit's page, run in the page itself.

Only this module (and `views/page_css.py`) knows Streamlit's page: a keyed widget's box is found by its
`.st-key-<key>` class, Streamlit's own parts by their `data-testid`. The scripts are plain JavaScript drawn with
`st.html(..., unsafe_allow_javascript=True)`: nothing to install, nothing fetched. Three go into the page:
`PAGE_JS` once on every page (`sandbox_app.py`), `remember_layout_js` on the sandbox's page (it carries the
run's layout), and the draft keeper's component on Write your loop (`views/draft_keeper.py`), which talks back.
"""

from __future__ import annotations

import json

from agent.page.keys import KEYS
from views.page_css import EDITOR, key_class

HOLD_MS = 2_000
"""The longest a click on the navigation waits for a field's text to reach the server."""
LOOP_DIAGRAM_KEY = "loop_cycle"
"""The key of the box The loop view draws the cycle in: `PAGE_JS` finds it by it."""
LAYOUT_STORE = "loop-sandbox-controls"
"""The browser's localStorage key for the layout last used."""
RUN_STORE = "loop-sandbox-run"
"""The tab's sessionStorage key for the sandbox's latest address (its run's link)."""
PRESS_KEY = "loopSandboxPressKey"
"""The page's function that presses a key's widget: the player hands it a key that waited while the page drew the
run itself (Export, Change the past open)."""
HELP_MARK = '[data-testid="stWidgetLabel"] [data-testid="stTooltipIcon"]'
"""A widget's help mark, in its label: a switch's label holds it, so a press on it would flip the switch."""
RESTORED = "restored"
"""The query word a bare visit carries when this tab's run was put back into its address."""

# One script, four behaviours, each a block of its own; one guard, so a page drawn again adds no listener twice.
# Each acts only where its widgets are: the keys and the cycle on the sandbox's page, Tab in the exercise's editor.
PAGE_JS = """
<script>
(() => {
  if (window.__loopSandboxPage) return;
  window.__loopSandboxPage = true;

  // The sandbox's keyboard (agent/page/keys.py's KEYS): a key presses the button it names, found by the
  // button's Streamlit key, so a key does exactly what the click does. Keys are left alone while a text box, a
  // select or anything editable has the focus, or with Ctrl, Alt or Meta held: typing a task never steps the
  // loop. A focused slider or view picker keeps the letter keys working.
  {
    const widgets = {};
    for (const [, names, widget] of __KEYS__) for (const name of names.split("|")) widgets[name] = widget;
    const typing = (element) => element && (element.isContentEditable
      || ["INPUT", "TEXTAREA", "SELECT"].includes(element.tagName)
      || ["slider", "combobox", "listbox", "textbox", "option"].includes(element.getAttribute("role")));
    const onSlider = (element) => element && element.getAttribute
      && (element.getAttribute("role") === "slider" || (element.tagName === "INPUT" && element.type === "range"));
    const inPicker = (element) => element && element.closest && element.closest(__PICKER__);
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
    window[__PRESS_KEY__] = (key) => {
      const widget = widgets[key];
      if (!widget) return;
      queue.push({widget, key, code: key.length === 1 ? "" : key});
      next();
    };
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
  }

  // The navigation and the text fields. Streamlit sends a field's text when the field loses focus, on the press
  // of the click that moves away, but later than that click's request for the other page: the text's rerun
  // names the page the learner is leaving and takes them back to it. A click on the sidebar's navigation is held
  // until the server has started the run that carries the text (the app then says it is running), or
  // __HOLD_MS__ ms at most, then let go.
  {
    const NAVIGATION = '[data-testid="stSidebarNav"] a';
    const FIELD = 'textarea, input:not([type="checkbox"]):not([type="radio"]):not([type="file"]):not([type="range"])';
    let changedAt = null, heldLink = null, heldTimer = null;
    const release = () => {
      const link = heldLink;
      changedAt = null; heldLink = null;
      if (heldTimer !== null) clearTimeout(heldTimer);
      heldTimer = null;
      if (link && link.isConnected) link.click();
    };
    // A field whose text changed fires "change" as it loses focus: Streamlit sends the text a moment later.
    document.addEventListener("change", (event) => {
      if (event.target instanceof Element && event.target.matches(FIELD)) changedAt = performance.now();
    }, true);
    document.addEventListener("click", (event) => {
      const link = event.target instanceof Element ? event.target.closest(NAVIGATION) : null;
      if (!link || changedAt === null) return;
      const waited = performance.now() - changedAt;
      if (waited >= __HOLD_MS__ || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey
          || event.altKey) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      heldLink = link;
      if (heldTimer === null) heldTimer = setTimeout(release, __HOLD_MS__ - waited);
    }, true);
    // The server has the text once it has started the run that carries it.
    new MutationObserver(() => {
      const app = document.querySelector('[data-testid="stApp"]');
      if (changedAt === null || !app || app.dataset.testScriptState !== "running") return;
      if (heldLink) release(); else changedAt = null;
    }).observe(document.documentElement, {subtree: true, attributes: true,
                                          attributeFilter: ["data-test-script-state"]});
  }

  // A widget's help mark stands in its label, and a switch's label takes a press on it to read the help for a press
  // on the switch (a "?" beside All controls changed the layout). The press stops here; the help still shows on
  // hover and on focus.
  {
    const onHelp = (event) => (event.composedPath()[0] || event.target).closest?.(__HELP_MARK__);
    for (const type of ["pointerdown", "pointerup", "mousedown", "mouseup", "click"]) {
      window.addEventListener(type, (event) => {
        if (!onHelp(event)) return;
        event.stopPropagation();
        if (type === "click") event.preventDefault();  // nor does the label hand the click to its switch
      }, true);
    }
  }

  // The loop's cycle opens where the loop begins. A cycle wider than its column (at 900 px) scrolls sideways,
  // and a box scrolled to its left edge hides where the loop begins, drawn in the middle. Each time the page
  // draws the cycle anew, its box is scrolled so the first node (`start`, "messages = [task]") stands in the
  // middle of the view; the learner scrolls on from there.
  // Tab in the exercise's code box indents (Shift+Tab takes an indent away, on every selected line); Escape then
  // Tab moves on to the next control, so the keyboard never gets stuck in the box.
  {
    const INDENT = "    ";
    const openAtStart = () => {
      for (const chart of document.querySelectorAll(__CYCLE__)) {
        const svg = chart.querySelector("svg");
        if (!svg || svg.dataset.openedAtStart || !chart.clientWidth) continue;
        const start = Array.from(svg.querySelectorAll("g.node"))
          .find((node) => (node.querySelector("title") || {}).textContent === "start");
        if (!start) continue;
        svg.dataset.openedAtStart = "1";
        const box = chart.getBoundingClientRect(), node = start.getBoundingClientRect();
        chart.scrollLeft += node.left + node.width / 2 - (box.left + chart.clientWidth / 2);
      }
    };
    const tabIndents = () => {
      const area = document.querySelector(__EDITOR__);
      if (!area || area.dataset.tabIndents) return;
      area.dataset.tabIndents = "1";
      let leaving = false;
      area.addEventListener("keydown", (event) => {
        if (event.key === "Escape") { leaving = true; return; }
        if (event.key !== "Tab" || leaving || event.ctrlKey || event.altKey || event.metaKey) {
          leaving = false; return;
        }
        event.preventDefault();
        const text = area.value, start = area.selectionStart, end = area.selectionEnd;
        const lineStart = text.lastIndexOf("\\n", start - 1) + 1;
        let value, from, to;
        if (start === end && !event.shiftKey) {
          value = text.slice(0, start) + INDENT + text.slice(end);
          from = to = start + INDENT.length;
        } else {
          const stop = end > start && text[end - 1] === "\\n" ? end - 1 : end;
          const lines = text.slice(lineStart, stop).split("\\n");
          const changed = lines.map((line) => event.shiftKey ? line.replace(/^ {1,4}/, "") : INDENT + line);
          const block = changed.join("\\n");
          value = text.slice(0, lineStart) + block + text.slice(stop);
          const shift = changed[0].length - lines[0].length;
          from = start === end ? Math.max(lineStart, start + shift) : lineStart;
          to = start === end ? from : lineStart + block.length;
        }
        const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set;
        setter.call(area, value);
        area.dispatchEvent(new Event("input", {bubbles: true}));
        area.setSelectionRange(from, to);
      });
    };
    // One observer for both: each looks for its own element among what Streamlit has just drawn.
    const drawn = () => { openAtStart(); tabIndents(); };
    new MutationObserver(drawn).observe(document.body, {childList: true, subtree: true});
    drawn();
  }
})();
</script>
""".replace("__KEYS__", json.dumps(KEYS)).replace("__PICKER__", json.dumps(key_class("tab"))).replace(
    "__PRESS_KEY__", json.dumps(PRESS_KEY)).replace(
    "__HOLD_MS__", str(HOLD_MS)).replace(
    "__HELP_MARK__", json.dumps(HELP_MARK)).replace(
    "__CYCLE__", json.dumps(f'{key_class(LOOP_DIAGRAM_KEY)} [data-testid="stGraphVizChart"]')).replace(
    "__EDITOR__", json.dumps(EDITOR))


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
