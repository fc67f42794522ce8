"""The README stays short and the docs stay reachable: the README shows what it is, its picture and its two commands
on the first screen and reads in about five minutes; every relative link lands on a file (and a heading, when it
names one), and every page in docs/ is linked from the README with a line saying what it holds."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
MARKDOWN = [README, *DOCS]

# A link or an image: [text](target) or ![alt](target), with an optional "title" after the target.
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def prose(text: str) -> str:
    """The text with fenced blocks and code spans taken out: code such as `xs[0](y)` is not a link."""
    text = re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", text, flags=re.S | re.M)
    return re.sub(r"(`+)(?:(?!\n\n).)+?\1", "", text, flags=re.S)


def relative_links(path: Path) -> list[str]:
    targets = LINK.findall(prose(path.read_text()))
    return [target for target in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I)]


def heading_anchors(path: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    anchors = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", prose(path.read_text()), re.M):
        anchor = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        anchors.add(anchor)
    return anchors


def broken_links(page: Path) -> list[str]:
    """Each relative link of the page whose file is missing, or whose #anchor is no heading of that file."""
    broken = []
    for target in relative_links(page):
        where, _, anchor = target.partition("#")
        file = (page.parent / where).resolve() if where else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in heading_anchors(file):
            broken.append(f"{target}: {file.name} has no heading #{anchor}")
    return broken


def test_the_readme_is_at_most_250_lines():
    lines = README.read_text().splitlines()
    assert len(lines) <= 250, f"README.md is {len(lines)} lines; move a section into docs/"


FIRST_SCREEN = 40  # lines: what a newcomer sees before scrolling
WORDS_AT_MOST = 1100  # about five minutes at 200-240 words a minute
SENTENCE_WORDS_AT_MOST = 45


def sentences(text: str) -> list[str]:
    """The prose's sentences: paragraphs and list items, split at a full stop before a capital, bold or a link."""
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", prose(text))
    blocks = re.split(r"\n\s*\n|\n(?=[-*] |#)", text)
    return [s for block in blocks for s in re.split(r"(?<=[.!?])\s+(?=[A-Z*\[(])", " ".join(block.split())) if s]


def test_the_readme_s_first_screen_holds_what_it_is_its_picture_and_its_two_commands():
    first = "\n".join(README.read_text().splitlines()[:FIRST_SCREEN])
    assert "](docs/screenshot.png)" in first
    assert "python -m pip install -e . && python -m streamlit run sandbox_app.py" in first
    assert 'python -m pip install -e ".[test]" && python -m pytest' in first
    assert "python3 -m venv .venv" in first


def test_the_readme_reads_in_about_five_minutes_in_sentences_of_at_most_45_words():
    text = README.read_text()
    assert len(text.split()) <= WORDS_AT_MOST, f"README.md is {len(text.split())} words; move details into docs/"
    long = [s for s in sentences(text) if len(s.split()) > SENTENCE_WORDS_AT_MOST]
    assert long == [], f"README.md has sentences over {SENTENCE_WORDS_AT_MOST} words"


def test_the_sentence_split_finds_a_long_sentence():
    text = ("One short. " + "Long " * 50 + "end.\n\n"
            "- An item. [A link](x.md) ends it. `Code. Here` too\n```\nA. B.\n```\n")
    assert [len(s.split()) for s in sentences(text)] == [2, 51, 3, 5]


def test_the_link_check_finds_links_and_refuses_a_broken_one(tmp_path):
    assert relative_links(README) and DOCS
    assert LINK.findall("see [x](docs/a.md) and ![y](b.png)") == ["docs/a.md", "b.png"]
    assert LINK.findall(prose("in code `[x](docs/a.md)` and\n```\n[y](b.md)\n```\n")) == []
    (tmp_path / "there.md").write_text("# A heading, here\n")
    page = tmp_path / "page.md"
    page.write_text("[ok](there.md#a-heading-here) [web](https://example.com) [gone](gone.md) [bad](there.md#nope)\n")
    assert broken_links(page) == ["gone.md: no such file", "there.md#nope: there.md has no heading #nope"]


@pytest.mark.parametrize("page", MARKDOWN, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_points_at_a_file_that_exists(page):
    assert broken_links(page) == [], f"{page.relative_to(ROOT)} links nowhere"


def test_every_doc_is_linked_from_the_readme_with_a_line_saying_what_it_holds():
    readme = README.read_text()
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in relative_links(README)}
    for doc in DOCS:
        name = f"docs/{doc.name}"
        assert doc.resolve() in linked, f"README.md does not link {name}"
        assert re.search(rf"^- \[{re.escape(name)}\]\({re.escape(name)}\): \S.{{20,}}$", readme, re.M), (
            f"README.md's list of docs has no line saying what {name} holds")
