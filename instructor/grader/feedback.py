"""A student's feedback page: one self-contained HTML file (no script, no style sheet or font fetched), readable
offline and by mail. It shows, per exercise, its number and title as the book writes them ("Exercise 4b.2"), the
points, every feedback line and the student's answer cells as code; lines wrap. No markdown is rendered, so no
MyST markup ({exercise}, {glue:text}) can show up raw; the formulas are the book's, not repeated here."""

from __future__ import annotations

import html
import re

STYLE = """body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:52rem;margin:2rem auto;
padding:0 1rem;line-height:1.5;color:#222}h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}
.points{float:right;font-weight:600}
.full{color:#1a7f37}.none{color:#b42318}pre,li{white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word}
pre{background:#f6f8fa;padding:.75rem;border-radius:6px;font-size:.85rem}ul.notes li{margin:.25rem 0}"""


def exercise_name(key: str) -> str:
    """'ch04b.ex2' -> 'Exercise 4b.2'; a follow-up 'ch02.ex2b' -> 'Exercise 2.2, follow-up'."""
    match = re.fullmatch(r"ch(\d+)([a-z]?)\.ex(\d+)([a-z]?)", key)
    if not match:
        return key
    name = f"Exercise {int(match[1])}{match[2]}.{match[3]}"
    return name + (", follow-up" if match[4] else "")


def page(result, assignment, class_name: str = "book") -> str:
    from seqviz.exercises import EXERCISES

    e = html.escape
    total, maximum = sum(result.scores.values()), sum(result.maximum.values())
    chapter = result.assignment or "?"
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><meta name='viewport' "
             f"content='width=device-width,initial-scale=1'><title>Feedback: {e(result.student)}, {e(chapter)}"
             f"</title><style>{STYLE}</style></head><body>",
             f"<h1>Feedback for {e(result.student)}: {e(chapter)}</h1>",
             f"<p>Score: <strong>{total:g} / {maximum:g}</strong> points. Each exercise is graded on its own, "
             f"with the public check and hidden tests run outside your notebook (class: {e(class_name)}).</p>"]
    if result.messages:
        parts.append("<ul class='notes'>" + "".join(f"<li>{e(m)}</li>" for m in result.messages) + "</ul>")
    for key, earned in result.scores.items():
        title = EXERCISES[key].title if key in EXERCISES else ""
        cls = "full" if earned >= result.maximum.get(key, 0) and earned > 0 else "none" if earned == 0 else ""
        parts.append(f"<h2>{e(exercise_name(key))}: {e(title)} <span class='points {cls}'>{earned:g} / "
                     f"{result.maximum.get(key, 0):g}</span></h2>")
        lines = result.lines.get(key) or ([result.notes[key]] if result.notes.get(key) else [])
        if lines:
            parts.append("<ul class='notes'>" + "".join(f"<li>{e(line)}</li>" for line in lines) + "</ul>")
        if result.code.get(key):
            parts.append(f"<p>Your answer:</p><pre><code>{e(result.code[key][:20000])}</code></pre>")
    parts.append("</body></html>")
    return "\n".join(parts)
