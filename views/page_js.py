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
    // In the capture phase, before the widget with the focus: a view picked by a click keeps the focus, and its
    // own arrow keys would move between views, not turns.
    document.addEventListener("keydown", (event) => {
      if (!event.isTrusted || event.ctrlKey || event.altKey || event.metaKey || event.repeat) return;
      const active = document.activeElement;
      const turnKey = widgets[event.key] === "look_back";
      // A focused slider moves itself on its own keys; the letters still reach their buttons.
      if (onSlider(active) ? turnKey : typing(active) && !inPicker(active)) return;
      const widget = widgets[event.key] && document.querySelector(`.st-key-${widgets[event.key]}`);
      const slider = widget && widget.querySelector('input[type="range"]');
      const button = widget && widget.querySelector('button[data-testid^="stBaseButton"]');
      if (slider) {
        // The look-back keys move the slider as its own keys do: the same key, given to its thumb.
        event.preventDefault();
        event.stopPropagation();
        for (const type of ["keydown", "keyup"]) {
          slider.dispatchEvent(new KeyboardEvent(type, {key: event.key, code: event.code, bubbles: true}));
        }
      } else if (button && !button.disabled) {
        event.preventDefault();
        event.stopPropagation();  // R is Streamlit's own rerun key too: one press, one Reset
        button.click();
      }
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
    "__HOLD_MS__", str(HOLD_MS)).replace(
    "__CYCLE__", json.dumps(f'{key_class(LOOP_DIAGRAM_KEY)} [data-testid="stGraphVizChart"]')).replace(
    "__EDITOR__", json.dumps(EDITOR))


def remember_layout_js(layout_word: str, bare_visit: bool) -> str:
    """The browser remembers the layout last used (Start here or All controls). A bare first visit (no link) of
    someone whose last layout was All controls opens All controls: the page reloads once with `controls=all`."""
    return """
<script>
(() => {
  const layout = __LAYOUT__, bare = __BARE__, key = __KEY__;
  let saved = null;
  try { saved = window.localStorage.getItem(key); } catch (e) { return; }  // storage off: Start here each time
  if (bare && layout === "start" && saved === "all") {
    const address = new URL(window.location.href);
    address.search = "?controls=all";
    window.location.replace(address.toString());
    return;
  }
  try { window.localStorage.setItem(key, layout); } catch (e) {}
})();
</script>
""".replace("__LAYOUT__", json.dumps(layout_word)).replace("__BARE__", json.dumps(bare_visit)).replace(
        "__KEY__", json.dumps(LAYOUT_STORE))
