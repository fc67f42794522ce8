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
})();
</script>
""".replace("__KEYS__", json.dumps(KEYS))


LAYOUT_STORE = "loop-sandbox-controls"  # the browser's localStorage key for the layout last used


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
