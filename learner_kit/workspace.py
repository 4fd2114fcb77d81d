"""Copy the release notebooks into the learner's workspace without ever overwriting their work.

    python -m learner_kit.workspace course workspace [--layout WORKSPACES_DIR]

The first run copies everything; later runs add only files that are new in the release
(a notebook published since, a data file) and leave every existing file as it is. A notebook
copied gets the metadata that its kernel would write on start (the kernel's language_info,
Python's version included), so JupyterLab does not mark it unsaved as soon as it opens.

With --layout, JupyterLab's saved layouts live in WORKSPACES_DIR (`make lab` keeps them in
workspace/.jupyter/, out of the file browser's sight): when it holds no default layout yet, one
is written that opens the first notebook, so that /lab shows notebook 01 rather than the
Launcher on a first start. A layout the learner has since saved is never replaced.
"""
import argparse
import json
import shutil
import sys
from pathlib import Path

from learner_kit import i18n
from learner_kit.i18n import tr

DEFAULT_LAYOUT = "default-37a8.jupyterlab-workspace"  # jupyterlab_server's file name for the workspace "default"


def sync_workspace(release: Path, workspace: Path) -> list[Path]:
    """Copy each file of ``release`` that ``workspace`` lacks; return the files copied."""
    copied = []
    for source in sorted(release.rglob("*")):
        if not source.is_file() or ".ipynb_checkpoints" in source.parts:
            continue
        target = workspace / source.relative_to(release)
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
        if target.suffix == ".ipynb":
            stamp_kernel(target)
        copied.append(target)
    return copied


def kernel_metadata() -> dict:
    """The notebook metadata that this Python's ipykernel writes when a kernel starts (kernelspec, language_info)."""
    try:
        from ipykernel.ipkernel import IPythonKernel

        language_info = json.loads(json.dumps(IPythonKernel.language_info))
    except ImportError:  # the same fields, as ipykernel 7 reports them
        language_info = {"name": "python", "version": sys.version.split()[0], "mimetype": "text/x-python",
                         "codemirror_mode": {"name": "ipython", "version": sys.version_info[0]},
                         "pygments_lexer": "ipython3", "nbconvert_exporter": "python", "file_extension": ".py"}
    kernelspec = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    return {"kernelspec": kernelspec, "language_info": language_info}


def stamp_kernel(notebook: Path) -> bool:
    """Give a Python notebook the kernel's metadata where it differs; whether the file was rewritten."""
    try:
        content = json.loads(notebook.read_text(encoding="utf-8"))
        metadata = content["metadata"]
    except (ValueError, KeyError, TypeError):  # not a notebook: copied as it is
        return False
    if metadata.get("language_info", {}).get("name", "python") != "python":
        return False
    wanted = kernel_metadata()
    wanted["kernelspec"] = metadata.get("kernelspec") or wanted["kernelspec"]
    if all(metadata.get(key) == value for key, value in wanted.items()):
        return False
    metadata.update(wanted)
    notebook.write_text(json.dumps(content, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return True


def first_notebook(workspace: Path) -> str | None:
    """The first notebook of the course, as a path relative to ``workspace`` (01-attention/01-attention.ipynb)."""
    found = sorted(p for p in Path(workspace).glob("*/*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    return found[0].relative_to(workspace).as_posix() if found else None


def layout_opening(notebook: str) -> dict:
    """A JupyterLab workspace ("default") whose main area shows ``notebook`` and whose file browser is open."""
    widget = f"notebook:{notebook}"
    return {
        "data": {
            "layout-restorer:data": {
                "main": {"dock": {"type": "tab-area", "currentIndex": 0, "widgets": [widget]}, "current": widget},
                "left": {"collapsed": False, "visible": True, "current": "filebrowser", "widgets": ["filebrowser"]},
                "right": {"collapsed": True, "visible": True, "widgets": []},
                "down": {"size": 0, "collapsed": True, "widgets": []},
            },
            "file-browser-filebrowser:cwd": {"path": str(Path(notebook).parent.as_posix())},
            widget: {"data": {"path": notebook, "factory": "Notebook"}},
        },
        "metadata": {"id": "default"},
    }


def seed_layout(workspaces_dir: Path, notebook: str) -> Path | None:
    """Write the default layout opening ``notebook`` unless one is saved already; the file written, or None."""
    target = Path(workspaces_dir) / DEFAULT_LAYOUT
    if target.exists():
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(layout_opening(notebook), indent=1), encoding="utf-8")
    return target


# JupyterLab's own words (menus, dialogs) come from a language pack (jupyterlab-language-pack-ko-KR, pinned in
# requirements.txt), chosen by this setting of its translation plugin.
LOCALE_SETTING = Path("@jupyterlab") / "translation-extension" / "plugin.jupyterlab-settings"


def seed_locale(settings_dir: Path, locale: str) -> Path | None:
    """Set JupyterLab's display language in ``settings_dir`` unless the learner has set one; the file written, or None."""
    target = Path(settings_dir) / LOCALE_SETTING
    if target.exists():
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"locale": locale}, indent=1), encoding="utf-8")
    return target


def release_language(release: Path) -> str:
    """The language the release's notebooks are written in (the first one's metadata), else the current one."""
    first = first_notebook(release) if Path(release).is_dir() else None
    try:
        return i18n.notebook_language(json.loads((Path(release) / first).read_text(encoding="utf-8")))
    except (TypeError, OSError, ValueError):
        return i18n.language()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release", type=Path)
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--layout", type=Path, metavar="WORKSPACES_DIR",
                        help="JupyterLab's workspaces folder: seed a layout that opens the first notebook")
    parser.add_argument("--locale", help="JupyterLab's display language (e.g. ko_KR), set in --settings once")
    parser.add_argument("--settings", type=Path, metavar="SETTINGS_DIR", help="JupyterLab's user settings folder")
    args = parser.parse_args(argv)
    with i18n.speaking(release_language(args.release)):
        if not args.release.is_dir():
            parser.exit(1, tr("{release}/ not found: run this from the course repository.", release=args.release) + "\n")
        copied = sync_workspace(args.release, args.workspace)
        if copied:
            print(tr("Copied {count} new file(s) from {release}/ into {workspace}/ (your existing files are untouched).",
                     count=len(copied), release=args.release, workspace=args.workspace))
        else:
            print(tr("{workspace}/ is up to date; your work is untouched.", workspace=args.workspace))
    notebook = first_notebook(args.workspace)
    if args.layout is not None and notebook is not None:
        seed_layout(args.layout, notebook)
    if args.locale and args.settings is not None:
        seed_locale(args.settings, args.locale)


if __name__ == "__main__":
    main()
