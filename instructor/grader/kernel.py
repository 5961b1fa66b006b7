"""Run a prepared submission in a fresh kernel, cell by cell (inside the sandbox: ``scripts/grade.py --worker``).

    python kernel.py NOTEBOOK PROGRESS --cell-timeout 60 [--skip 3,7]

Each cell runs with a time limit (then the kernel is interrupted and the next cell runs); cells listed in
``--skip`` are left out (a cell that hung or ended the kernel in an earlier attempt). ``PROGRESS`` holds the
index of the cell being run, so the grader knows where a kernel that had to be killed stopped. Outputs are
dropped (no score depends on them) beyond a small budget per cell, so a submission that prints gigabytes does not
fill the grader's memory. Exit status: 0 done, 3 the kernel died at the cell in ``PROGRESS``.
"""

import argparse
import sys

OUTPUT_BUDGET = 20_000  # characters of text output kept per cell (for the report of an error)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("notebook")
    parser.add_argument("progress")
    parser.add_argument("--cell-timeout", type=int, default=60)
    parser.add_argument("--skip", default="")
    args = parser.parse_args(argv)

    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    class QuietClient(NotebookClient):
        def output(self, outs, msg, display_id, cell_index):
            kept = sum(len(str(o.get("text", ""))) + len(str(o.get("evalue", ""))) for o in outs)
            if kept > OUTPUT_BUDGET and msg["msg_type"] != "error":
                return None
            return super().output(outs, msg, display_id, cell_index)

    notebook = nbformat.read(args.notebook, as_version=4)
    skip = {int(i) for i in args.skip.split(",") if i}
    client = QuietClient(notebook, timeout=args.cell_timeout, interrupt_on_timeout=True, allow_errors=True,
                         kernel_name="python3", iopub_timeout=10, raise_on_iopub_timeout=False,
                         record_timing=False, resources={"metadata": {"path": "."}})
    errors = []
    with client.setup_kernel():
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type != "code" or index in skip:
                continue
            with open(args.progress, "w") as handle:
                handle.write(str(index))
            try:
                client.execute_cell(cell, index)
            except DeadKernelError:
                return 3
            except CellTimeoutError:
                errors.append(f"{index}: time limit")
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    errors.append(f"{index}: {output.get('ename')}: {str(output.get('evalue'))[:150]}")
                    break
    with open(args.progress, "w") as handle:
        handle.write("done\n" + "\n".join(errors))
    return 0


if __name__ == "__main__":
    sys.exit(main())
