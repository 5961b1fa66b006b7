"""scripts/live_check.py: the parts that need no JupyterLab (the browser run itself is make live-check)."""

import csv
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import live_check  # noqa: E402


def test_results_are_written_as_csv_and_markdown(tmp_path):
    rows = [{"chapter": "08", "view": "heads", "interaction": "slider 'layer'", "updates": 3, "changed": "yes",
             "shows": "picture", "median_ms": 81.2, "max_ms": 97.9}]
    csv_path, md_path = live_check.write_results(rows, tmp_path)
    with csv_path.open() as f:
        assert list(csv.DictReader(f))[0]["median_ms"] == "81.2"
    assert "| 08 | heads | slider 'layer' | 3 | yes | picture | 81 | 98 |" in md_path.read_text()


def test_no_matching_chapter_starts_nothing(capsys):
    assert live_check.main(["--notebooks", "no-such-chapter"]) == 2
    assert "no notebooks match" in capsys.readouterr().out


def test_every_chapter_gets_a_settings_file_that_keeps_cells_in_the_page_and_saves_nothing():
    tracker = live_check.SETTINGS["@jupyterlab/notebook-extension/tracker"]
    assert tracker["windowingMode"] == "none" and tracker["autoStartDefaultKernel"] is True
    assert live_check.SETTINGS["@jupyterlab/docmanager-extension/plugin"]["autosave"] is False


def test_the_labs_kernels_are_listed_with_a_time_while_they_start():
    """A kernel that joins the server's table before its first activity stamp must list with a time, not answer
    500 (scripts/lab_kernels.py): the config the check writes selects the stamped manager, and its stamp is set."""
    pytest.importorskip("jupyter_server")
    from jupyter_server._tz import isoformat
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
    from traitlets.config import Config

    config = Config()
    exec(live_check.server_config(), {"c": config})  # what jupyter_server does with a config file
    manager = AsyncMappingKernelManager(config=config)
    kernel = manager.kernel_manager_factory(parent=manager)  # a kernel as it joins the table, before it starts
    assert type(kernel).__name__ == "StampedKernelManager"
    assert isoformat(kernel.last_activity).endswith("Z")
