"""Loop Sandbox: step an agent loop in the browser and watch the conversation grow.

Run it with `streamlit run sandbox_app.py` (or, tuned to hold a class, `python -m agent serve-page`:
views/launcher.py). This file only sets the page up and
names its views; each view is a page script in `views/` with its own URL path,
so a teacher can link straight to the exercise. What a view works out about a
run comes from `agent.page` (no streamlit there). Each browser tab is its own
session, so two tabs are two sandboxes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # the views import each other as `views.*`, wherever the page is started from
    sys.path.insert(0, str(HERE))

from views import session  # noqa: E402
from views.page_css import PAGE_CSS  # noqa: E402
from views.page_js import PAGE_JS  # noqa: E402

# The API key is kept by Streamlit only (never in the Sandbox): a widget's value is forgotten when it is not
# drawn, and the real model's settings are not drawn while another model is picked.
for key in ("api_key", "loop_code"):
    if key in st.session_state:
        st.session_state[key] = st.session_state[key]  # makes it the session's value, not only the widget's

st.set_page_config(page_title="Loop Sandbox", page_icon=":material/autorenew:", layout="wide")
st.html(PAGE_CSS)
VIEWS = [
    st.Page("views/sandbox.py", title="Sandbox", icon=":material/autorenew:", url_path="sandbox", default=True),
    st.Page("views/write_your_loop.py", title="Write your loop", icon=":material/edit_note:",
            url_path="write-your-loop"),
]
page = st.navigation(VIEWS)
if page.url_path not in ("", "sandbox"):
    session.left_for_another_page()
page.run()
# After the page, drawn the same each run: the keys, a click away that waits for a field's text, the cycle opened
# at its start and Tab in the exercise's editor, each acting where its widgets are.
st.html(PAGE_JS, unsafe_allow_javascript=True)
