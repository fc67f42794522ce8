"""HTML for the parts of the page that widgets do not draw well: message cards and the loop's code.

Plain strings, no streamlit: the page passes them to `st.html` (its CSS for Streamlit's own elements is
`views/page_css.py`; this module's CSS is only about the HTML it writes). Every piece of
text that comes from a run (a task, a tool's input, a model's words) is escaped,
so a reply holding `<script>` shows as those characters and does nothing.
"""

from __future__ import annotations

import html
import io
import json
import keyword
import tokenize
from typing import Any

from agent.openai_format import finish_reason, left_out_words
from agent.page.safe_text import clip_text
from agent.page.view import LoopSource
from agent.summary import result_text

CARDS_CSS = """
.ls-msg {border: 1px solid #e4e7eb; border-left: 4px solid #4c6ef5; border-radius: 10px; padding: 8px 12px;
  margin: 0 0 8px 0; background: #ffffff; font-size: 0.9rem;}
.ls-msg.ls-assistant {border-left-color: #7950f2;}
.ls-msg.ls-new {background: #fffbea; box-shadow: 0 0 0 1px #ffe066;}
.ls-head {display: flex; flex-wrap: wrap; gap: 2px 8px; align-items: center; margin-bottom: 4px;}
.ls-role {font-weight: 700; text-transform: uppercase; letter-spacing: .04em; font-size: .72rem; color: #4c6ef5;}
.ls-assistant .ls-role {color: #7950f2;}
.ls-index {font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .75rem; color: #7b8794;}
.ls-badge {font-size: .68rem; font-weight: 700; color: #8a5a00; background: #ffe066; border-radius: 999px;
  padding: 1px 8px; white-space: nowrap; flex: 0 0 auto;}
.ls-block {display: flex; gap: 8px; align-items: baseline; padding: 3px 0; border-top: 1px dashed #eef0f2;}
.ls-head + .ls-block {border-top: none;}
.ls-kind {flex: 0 0 auto; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .7rem;
  color: #52606d; background: #f1f3f5; border-radius: 4px; padding: 1px 6px;}
.ls-kind.ls-tool_use {color: #5f3dc4; background: #f3f0ff;}
.ls-kind.ls-tool_result {color: #2b8a3e; background: #ebfbee;}
.ls-kind.ls-error {color: #c92a2a; background: #fff5f5;}
.ls-body {white-space: pre-wrap; word-break: break-word; overflow-wrap: anywhere; min-width: 0; color: #1f2933;}
.ls-body code {font-size: .8rem; background: #f8f9fa; padding: 1px 4px; border-radius: 4px;}
.ls-quiet {color: #9aa5b1; font-style: italic;}
/* A loop's code never wraps mid-statement: a line too long for the box scrolls it sideways, every row as wide
   as the longest so a lit line stays lit. A value note stands beside its line when the box has room for the
   code and the notes (source_html writes that rule for each box, from its longest line), else under its line,
   inside the part of the box in view. */
.ls-code {font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; line-height: 1.5;
  border: 1px solid #e4e7eb; border-radius: 10px; padding: 8px 0; overflow-x: auto; container-type: inline-size;
  scrollbar-width: auto; scrollbar-color: #9aa5b1 #f1f3f5;
  background: linear-gradient(to right, #fbfcfd 30%, rgba(251, 252, 253, 0)) left / 32px 100% no-repeat local,
    linear-gradient(to left, #fbfcfd 30%, rgba(251, 252, 253, 0)) right / 32px 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, rgba(31, 41, 51, .3), transparent) left / 14px 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, rgba(31, 41, 51, .3), transparent) right / 14px 100% no-repeat scroll,
    #fbfcfd;}
.ls-rows {width: max-content; min-width: 100%;}
.ls-line {display: flex; flex-wrap: wrap; align-items: baseline; padding-right: 12px;
  border-left: 3px solid transparent; box-sizing: border-box;}
.ls-src {flex: 0 0 auto; white-space: pre;}
.ls-line.ls-lit {background: #fff3bf; border-left-color: #f08c00;}
.ls-line.ls-anchor {background: #ffe066;}
.ls-ln {flex: 0 0 3.2em; text-align: right; padding-right: 1em; color: #7b8794; user-select: none;}
/* Under its line, a note's words start under the code and wrap inside the width of the box (100cqi), not of
   the scrolled rows; `contain` keeps a long note from widening the rows. */
.ls-here {flex: 0 0 100%; box-sizing: border-box; contain: inline-size;
  padding: 0 max(0px, calc(100% - 100cqi + 15px)) 2px 4.2em; color: #8a5a00; font-weight: 700;
  font-family: Helvetica, Arial, sans-serif; font-size: 12px; line-height: 1.4; overflow-wrap: anywhere;}
.ls-pairs {display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 8px 16px; align-items: start;}
.ls-pairs-head {font-weight: 700; font-size: .8rem; color: #52606d;}
/* Chat Completions beside the Messages API: one row per message and its translation, so a note or a second
   tool message stays inside its row. Too narrow for two columns, a row stacks into one framed pair. */
.ls-chat-pairs {container-type: inline-size;}
.ls-pair {display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 0 16px; align-items: start;
  padding: 8px 0 2px 0; border-top: 1px solid #eef0f2;}
.ls-pair.ls-pair-head {border-top: none; padding-top: 0;}
.ls-side {min-width: 0;}
.ls-side-label {font-size: .72rem; color: #7b8794; margin: 0 0 4px 0;}
.ls-stacked-only {display: none;}
@container (max-width: 620px) {
  .ls-pair {grid-template-columns: minmax(0, 1fr); border: 1px solid #e4e7eb; border-radius: 10px; padding: 8px 10px;
    margin: 0 0 10px 0;}
  .ls-pair.ls-pair-head {display: none;}
  .ls-stacked-only {display: block;}
}
.ls-oa {border: 1px solid #e4e7eb; border-left: 4px solid #10a37f; border-radius: 10px; padding: 6px 10px;
  margin: 0 0 6px 0; background: #ffffff; font-size: .85rem;}
.ls-oa.ls-new {background: #fffbea; box-shadow: 0 0 0 1px #ffe066;}
.ls-oa pre {margin: 4px 0 0 0; white-space: pre-wrap; overflow-wrap: anywhere; font-size: .78rem;}
.ls-oa-role {font-weight: 700; text-transform: uppercase; letter-spacing: .04em; font-size: .72rem; color: #0b7a5d;}
.ls-gap {color: #9aa5b1; font-style: italic; font-size: .8rem;}
.ls-kw {color: #cf222e;} .ls-str {color: #0a3069;} .ls-com {color: #6e7781; font-style: italic;}
.ls-num {color: #0550ae;} .ls-def {color: #8250df; font-weight: 600;}
"""
"""The cards' and the lit code's own rules: the page and the player both draw this HTML."""


def escape(text: Any) -> str:
    """Any value as text that HTML shows exactly as written."""
    return html.escape(str(text), quote=True)


CARD_CHARS = 20_000  # a value longer than this is drawn clipped in its card: a browser chokes on megabytes of it


def _e(value: Any) -> str:
    """A value from a run, escaped and clipped for a card; the whole is in the JSON views and the exports."""
    return escape(clip_text(str(value), CARD_CHARS, "the JSON below and the Export tab"))


def _block_html(block: Any) -> str:
    """One content block: a small type tag, then what it holds."""
    if not isinstance(block, dict):
        return _row("?", f"<code>{_e(json.dumps(block))}</code>")
    kind = block.get("type", "?")
    if kind == "text":
        return _row("text", _e(block.get("text", "")))
    if kind == "thinking":
        thought = block.get("thinking", "")
        return _row("thinking", _e(thought) if thought else '<span class="ls-quiet">empty: sent back unchanged</span>')
    if kind == "redacted_thinking":
        return _row("redacted_thinking", '<span class="ls-quiet">encrypted: sent back unchanged</span>')
    if kind == "tool_use":
        body = (f"<b>{_e(block.get('name'))}</b> <code>{_e(json.dumps(block.get('input'), ensure_ascii=False))}"
                f"</code> <span class=\"ls-index\">{_e(block.get('id'))}</span>")
        return _row("tool_use", body)
    if kind == "tool_result":
        error = block.get("is_error", False)
        body = (f"<span class=\"ls-index\">{_e(block.get('tool_use_id'))} →</span> "
                f"{_e(result_text(block.get('content')))}")
        if error:
            body += ' <span class="ls-kind ls-error">is_error: true</span>'
        return _row("tool_result", body, error)
    return _row(str(kind), f"<code>{_e(json.dumps(block, ensure_ascii=False))}</code>")


def _row(kind: str, body: str, error: bool = False) -> str:
    tag = "ls-error" if error else f"ls-{_e(kind)}"
    return f'<div class="ls-block"><span class="ls-kind {tag}">{_e(kind)}</span><div class="ls-body">{body}</div></div>'


def message_html(message: dict[str, Any], index: int, badge: str = "") -> str:
    """One message as a card: its role, its place in the array, a badge (e.g. `new`), and its blocks."""
    role = str(message.get("role", "?"))
    content = message.get("content")
    if isinstance(content, str):  # a plain string is what was sent: say so, rather than invent a block
        inner = _row("string", _e(content))
    else:
        blocks = content if isinstance(content, list) else []
        inner = "".join(_block_html(b) for b in blocks) or '<div class="ls-quiet">no blocks</div>'
    head = (f'<div class="ls-head"><span class="ls-role">{_e(role)}</span>'
            f'<span class="ls-index">messages[{index}]</span>'
            + (f'<span class="ls-badge">{_e(badge)}</span>' if badge else "") + "</div>")
    new = " ls-new" if badge else ""
    return f'<div class="ls-msg ls-{_e(role)}{new}">{head}{inner}</div>'


def messages_html(messages: list[dict[str, Any]], first_index: int = 0, new: range | None = None,
                  badge: str = "new") -> str:
    """Cards for consecutive messages; those whose index is in `new` get the badge."""
    new = new or range(0)
    return "".join(message_html(m, first_index + i, badge if first_index + i in new else "")
                   for i, m in enumerate(messages))


def _token_class(token: tokenize.TokenInfo, previous: str) -> str:
    if token.type == tokenize.NAME:
        if previous in ("def", "class"):
            return "ls-def"
        return "ls-kw" if keyword.iskeyword(token.string) else ""
    return {tokenize.STRING: "ls-str", tokenize.COMMENT: "ls-com", tokenize.NUMBER: "ls-num"}.get(token.type, "")


def highlight(lines: list[str]) -> list[str]:
    """Python source lines as HTML lines with keywords, strings, numbers and comments coloured."""
    out: list[list[str]] = [[] for _ in lines]
    row, col = 1, 0  # how far the source has been written out

    def emit(end_row: int, end_col: int, css: str) -> None:
        nonlocal row, col
        while (row, col) < (end_row, end_col) and row <= len(lines):
            stop = end_col if row == end_row else len(lines[row - 1])
            piece = lines[row - 1][col:stop]
            if piece:
                out[row - 1].append(f'<span class="{css}">{_e(piece)}</span>' if css else _e(piece))
            if row == end_row:
                col = stop
                break
            row, col = row + 1, 0

    previous = ""
    try:
        for token in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline):
            emit(*token.start, "")
            emit(*token.end, _token_class(token, previous))
            if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                previous = token.string
    except (tokenize.TokenError, IndentationError):  # show the rest plain rather than not at all
        pass
    emit(len(lines), len(lines[-1]) if lines else 0, "")
    return ["".join(parts) for parts in out]


NOTE_ROOM_CH = 20
"""The room a value note needs beside its line, in the code's characters (about 150 px): less, and it goes under."""


def source_html(source: LoopSource, note: str = "") -> str:
    """The loop's code with line numbers, the branch's lines lit, and `note` beside the line naming it.

    Lines never wrap (the box scrolls sideways); the notes stand beside their lines when the box is wide enough
    for the longest line and for each noted line with `NOTE_ROOM_CH` beside it, else each under its line."""
    rows, noted = [], []
    for i, line_html in enumerate(highlight(source.lines)):
        classes = "ls-line" + (" ls-lit" if i in source.marked else "") + (" ls-anchor" if i == source.anchor else "")
        said = [note] if note and i == source.anchor else []
        said += [source.notes[i]] if i in source.notes else []
        here = "".join(f'<span class="ls-here">◀ {_e(words)}</span>' for words in said)
        noted += [i] if said else []
        rows.append(f'<div class="{classes}"><span class="ls-ln">{source.first_line + i}</span>'
                    f'<span class="ls-src">{line_html or " "}</span>{here}</div>')
    width = [len(line.expandtabs(8)) for line in source.lines]  # a tab is drawn 8 wide in `white-space: pre`
    need = max([*width, *(width[i] + NOTE_ROOM_CH for i in noted)], default=0)
    # ch and em are the box's own (its monospace font): the line numbers' 4.2em, the row's border and padding.
    beside = (f"<style>@container (min-width: calc({need}ch + 4.2em + 15px)) {{.ls-fit-{need} .ls-line "
              f"{{flex-wrap: nowrap;}} .ls-fit-{need} .ls-here {{flex: 1 1 auto; padding: 0 0 0 1em; "
              "text-align: right;}}</style>") if noted else ""
    return f'{beside}<div class="ls-code ls-fit-{need}"><div class="ls-rows">{"".join(rows)}</div></div>'


def _chat_card(message: dict[str, Any], new: bool) -> str:
    """A Chat Completions message as a card: its role as a tag, and the whole message as JSON, `role` and all."""
    return (f'<div class="ls-oa{" ls-new" if new else ""}"><span class="ls-oa-role">{_e(message.get("role"))}</span>'
            f"<pre>{_e(json.dumps(message, indent=1, ensure_ascii=False))}</pre></div>")


def _chat_label(first: int, count: int) -> str:
    """Where a row's Chat Completions messages stand in that API's own `messages` array."""
    if count == 0:
        return "Chat Completions: no message"
    where = f"messages[{first}]" if count == 1 else f"messages[{first}]–[{first + count - 1}]"
    return f"Chat Completions {where}"


def _pair_row(row: str, left: str, right: str, right_data: str = "", head: bool = False) -> str:
    """One row of the side by side: the Messages API's side first, its translation second, each in one box."""
    return (f'<div class="ls-pair{" ls-pair-head" if head else ""}" data-row="{_e(row)}">'
            f'<div class="ls-side" data-side="messages-api" data-row="{_e(row)}">{left}</div>'
            f'<div class="ls-side" data-side="chat-completions" data-row="{_e(row)}"{right_data}>{right}</div></div>')


def chat_pairs_html(pairs: list[Any], new: range, stop_reason: str | None = None) -> str:
    """Row by row: each message of this API beside the Chat Completions messages that carry the same.

    `pairs` are `agent.openai_format.Pair`s; `new` marks the messages the shown turn added; `stop_reason`, the
    latest reply's, is set beside the `finish_reason` Chat Completions would say. Each row is one element holding
    both sides (`data-row` is the message's index, `system` or `finish`), so however many messages or notes a
    translation has, it stays beside the message it translates.
    """
    rows = [CHAT_HEAD_ROW, *chat_pair_rows(pairs, new), chat_finish_row(stop_reason)]
    return f'<div class="ls-chat-pairs">{"".join(rows)}</div>'


CHAT_HEAD_ROW = _pair_row("head", '<div class="ls-pairs-head">Messages API: what this loop sends</div>',
                          '<div class="ls-pairs-head">Chat Completions: the same conversation</div>', head=True)


def chat_pair_rows(pairs: list[Any], new: range) -> list[str]:
    """The rows of `chat_pairs_html` under its head, one for each pair: the player's frames keep them unmarked
    (`new` empty) and mark a turn's own as the page does."""
    rows = []
    chat_index = 0  # where the row's first Chat Completions message stands in that API's array
    for pair in pairs:
        count = len(pair.openai)
        row = "system" if pair.index is None else str(pair.index)
        left = ('<div class="ls-side-label ls-stacked-only">Messages API</div>'
                + ('<div class="ls-gap">system: a parameter of the request, not a message</div>' if pair.index is None
                   else message_html(pair.anthropic, pair.index, "new" if pair.index in new else "")))
        fresh = pair.index is not None and pair.index in new
        dropped = left_out_words(pair.left_out)
        right = (f'<div class="ls-side-label">{_e(_chat_label(chat_index, count))}</div>'
                 + ("".join(_chat_card(m, fresh) for m in pair.openai)
                    or '<div class="ls-gap">nothing: Chat Completions has no place for these blocks</div>')
                 + (f'<div class="ls-gap">{_e(dropped)}</div>' if dropped else ""))
        rows.append(_pair_row(row, left, right, f' data-chat-first="{chat_index}" data-chat-count="{count}"'))
        chat_index += count
    return rows


def chat_finish_row(stop_reason: str | None) -> str:
    """The last row: the latest reply's `stop_reason` beside the `finish_reason` Chat Completions says ("" before
    any reply)."""
    if not stop_reason:
        return ""
    said = finish_reason(stop_reason)
    return _pair_row("finish", f'<div class="ls-gap">the latest reply: stop_reason "{_e(stop_reason)}"</div>',
                     f'<div class="ls-gap">finish_reason {_e(json.dumps(said))}</div>')


def comparison_html(comparison: Any) -> str:
    """Two branches side by side from where they part (`agent.branches.Comparison`): each message beside the other
    branch's message at the same index, the first that differs marked, a gap where a branch has none."""
    cells = [f'<div class="ls-pairs-head">{_e(comparison.left)}</div>',
             f'<div class="ls-pairs-head">{_e(comparison.right)}</div>']
    for index, mine, theirs in comparison.rows:
        badge = "first difference" if index == comparison.first_difference else ""
        for message, name in ((mine, comparison.left), (theirs, comparison.right)):
            cells.append(message_html(message, index, badge) if message is not None else
                         f'<div class="ls-gap">messages[{index}]: none in {_e(name)}</div>')
    return f'<div class="ls-pairs">{"".join(cells)}</div>'
