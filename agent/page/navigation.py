"""The page's navigation and its text fields: a click on another page waits for the field's text to go out.

Streamlit sends a text field's text (the exercise's editor, the task, the system prompt, a number) when the
field loses focus, on the press of the click that moves away, but later than that click's request for the
other page; the text's rerun names the page the learner is leaving, and takes them back to it: the first click
on the sidebar's navigation did nothing. `NAVIGATION_HOLD_JS` holds such a click until the server has started
the run that carries the text (the app then says it is running), or `HOLD_MS` at most, then lets it go.
Streamlit-free: `sandbox_app.py` draws it once on every page.
"""

from __future__ import annotations

HOLD_MS = 2_000
"""The longest a click on the navigation waits for a field's text to reach the server."""

NAVIGATION_HOLD_JS = """
<script>
(() => {
  if (window.__loopSandboxNavigationHold) return;
  window.__loopSandboxNavigationHold = true;
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
  }).observe(document.documentElement, {subtree: true, attributes: true, attributeFilter: ["data-test-script-state"]});
})();
</script>
""".replace("__HOLD_MS__", str(HOLD_MS))
