"""Helpers shared by test modules (fixtures live in the conftest files)."""

from __future__ import annotations

from pathlib import Path


def write_pack(
    root: Path, name: str = "mini", *, pack_yaml: str | None = None, tasks: dict | None = None
) -> Path:
    pack_dir = root / name
    pack_dir.mkdir(parents=True)
    (pack_dir / "pack.yaml").write_text(
        pack_yaml
        if pack_yaml is not None
        else f"name: {name}\nversion: '0.1'\ndescription: test pack\ndefaults:\n  limits:\n    timeout_s: 5\n"
    )
    for task_name, files in (tasks if tasks is not None else {"double": {}}).items():
        task_dir = pack_dir / task_name
        task_dir.mkdir()
        defaults = {
            "task.yaml": "entry_point: double\ntags: [math]\n",
            "prompt.md": "Write double(x).",
            "starter.py": "def double(x):\n",
            "reference.py": "def double(x):\n    return 2 * x\n",
            "test_hidden.py": "from solution import double\n\ndef test_two():\n    assert double(2) == 4\n",
            "test_visible.py": "from solution import double\n\ndef test_one():\n    assert double(1) == 2\n",
        }
        defaults.update(files)
        for filename, content in defaults.items():
            if content is None:
                continue
            path = task_dir / filename
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content) if isinstance(content, str) else path.write_bytes(content)
    return pack_dir
