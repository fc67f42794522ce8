"""The Chat Completions side by side as HTML: each row holds one message and all that translates it.

The drawn grid is checked in Chromium (tests/test_browser_chat_pairs.py); this reads the HTML the page is given.
"""

import json
from html.parser import HTMLParser

import pytest

from agent.loop import RunState, run_to_end
from agent.models.fake import FakeModel
from agent.openai_format import side_by_side, translate_message
from agent.page.html_cards import chat_pairs_html
from agent.scripts import load_script

VOID = {"br", "hr", "img", "input", "meta", "link", "wbr"}


class Node:
    def __init__(self, tag: str, attrs: dict[str, str | None]) -> None:
        self.tag, self.attrs, self.children, self.text = tag, attrs, [], []

    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def find_all(self, css_class: str) -> list["Node"]:
        found = [self] if css_class in self.classes() else []
        return found + [n for child in self.children for n in child.find_all(css_class)]

    def all_text(self) -> str:
        return "".join(self.text) + "".join(child.all_text() for child in self.children)


class TreeBuilder(HTMLParser):
    """The HTML as a tree of elements; a tag closed out of order fails, so a malformed card shows here."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("root", {})
        self.open = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs))
        self.open[-1].children.append(node)
        if tag not in VOID:
            self.open.append(node)

    def handle_endtag(self, tag):
        assert self.open[-1].tag == tag, f"</{tag}> closes <{self.open[-1].tag}>"
        self.open.pop()

    def handle_data(self, data):
        self.open[-1].text.append(data)


def parse(markup: str) -> Node:
    builder = TreeBuilder()
    builder.feed(markup)
    builder.close()
    assert builder.open == [builder.root], "an element was left open"
    return builder.root


def played(name: str) -> RunState:
    script = load_script(name)
    state = RunState(script.task, system=script.system, tool_names=script.tools, max_turns=script.max_turns)
    run_to_end(state, FakeModel(script))
    return state


@pytest.mark.parametrize("name", ["add_then_answer", "two_calls_one_reply", "thinking_then_answer",
                                  "three_tool_chain", "two_file_search"])
def test_each_row_holds_one_message_beside_every_message_that_translates_it(name):
    state = played(name)
    pairs = side_by_side(state.messages, state.system)
    tree = parse(chat_pairs_html(pairs, range(len(state.messages) - 1, len(state.messages)), "end_turn"))
    [grid] = tree.find_all("ls-chat-pairs")
    rows = [child for child in grid.children if "ls-pair" in child.classes()]
    assert len(rows) == len(grid.children) == len(pairs) + 2  # the header, a row per pair, the finish_reason
    assert [r.attrs["data-row"] for r in rows] == (
        ["head"] + (["system"] if state.system else []) + [str(i) for i in range(len(state.messages))] + ["finish"])
    chat_index = 1 if state.system else 0
    for row in rows[1 + bool(state.system):-1]:
        index = int(row.attrs["data-row"])
        left, right = row.children  # exactly two sides, the Messages API's first
        assert (left.attrs["data-side"], right.attrs["data-side"]) == ("messages-api", "chat-completions")
        [card] = left.find_all("ls-msg")
        assert f"messages[{index}]" in card.all_text()
        translated = translate_message(state.messages[index])
        cards = right.find_all("ls-oa")
        assert [json.loads(c.children[1].all_text()) for c in cards] == translated
        assert (int(right.attrs["data-chat-first"]), int(right.attrs["data-chat-count"])) == (chat_index,
                                                                                               len(translated))
        chat_index += len(translated)
        notes = [n.all_text() for n in right.find_all("ls-gap")]
        assert notes == ([f"left out: {', '.join(pairs[index + bool(state.system)].left_out)}"
                          f" (Chat Completions has no thinking blocks to send back)"]
                         if pairs[index + bool(state.system)].left_out else [])
    assert "finish_reason" in rows[-1].children[1].all_text()


def test_two_results_in_one_user_message_stand_beside_their_two_tool_messages():
    state = played("two_calls_one_reply")
    rows = [r for r in parse(chat_pairs_html(side_by_side(state.messages), range(0))).find_all("ls-pair")]
    results = next(r for r in rows if r.attrs["data-row"] == "2")
    roles = [c.find_all("ls-oa-role")[0].all_text() for c in results.children[1].find_all("ls-oa")]
    assert roles == ["tool", "tool"] and len(results.children[0].find_all("ls-msg")) == 1
    assert "Chat Completions messages[2]–[3]" in results.children[1].all_text()
    following = next(r for r in rows if r.attrs["data-row"] == "3")
    assert "Chat Completions messages[4]" in following.children[1].all_text()


def test_a_system_prompt_takes_a_row_of_its_own_and_shifts_the_other_api_s_indices():
    state = RunState("What is 2 + 3?", system="Be brief.")
    rows = parse(chat_pairs_html(side_by_side(state.messages, state.system), range(0))).find_all("ls-pair")
    assert [r.attrs["data-row"] for r in rows] == ["head", "system", "0"]
    assert "system: a parameter of the request" in rows[1].children[0].all_text()
    assert "Chat Completions messages[1]" in rows[2].children[1].all_text()


def test_text_from_the_run_is_escaped_inside_its_row():
    state = RunState('<div class="ls-pair">not a row</div>')
    tree = parse(chat_pairs_html(side_by_side(state.messages), range(0)))
    assert [r.attrs["data-row"] for r in tree.find_all("ls-pair")] == ["head", "0"]
