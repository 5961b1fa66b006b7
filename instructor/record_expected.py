"""Write the expected values the checkers ship: ``seqviz/exercises/expected/<chapter>.json``.

    python instructor/record_expected.py            # all chapters
    python instructor/record_expected.py ch08 ch09b  # some

Every checker runs once with the reference answer and once with each registered wrong answer, with every
expected value computed live from the instructor's functions (``instructor/exercises``); each value asked for,
and each mistake registered beside it, is written as plain JSON. ``tests/test_exercises.py`` fails when a table
differs from what this script would write.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from seqviz.exercises import EXERCISES, run_checker  # noqa: E402
from seqviz.exercises.expected import HERE, use_source  # noqa: E402

from instructor.exercises import SOLUTIONS, Source  # noqa: E402


def record(chapters=None) -> dict[str, dict]:
    """{chapter: {key: plain value}} for every exercise of ``chapters`` (all by default)."""
    tables: dict[str, dict] = {}
    with use_source(Source(), tables):
        for key in sorted(EXERCISES):
            chapter = key.split(".")[0]
            if chapters and chapter not in chapters:
                continue
            solution = SOLUTIONS[key]
            for make in [solution.reference, *(factory for factory, _ in solution.wrong.values())]:
                run_checker(key, make())
    return {chapter: dict(sorted(table.items())) for chapter, table in tables.items()}


def main(argv=None) -> int:
    chapters = set(argv if argv is not None else sys.argv[1:])
    HERE.mkdir(exist_ok=True)
    for chapter, table in record(chapters).items():
        path = HERE / f"{chapter}.json"
        path.write_text(json.dumps(table, indent=0, sort_keys=True) + "\n")
        print(f"{path.relative_to(ROOT)}: {len(table)} values, {path.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
