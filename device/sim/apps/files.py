"""Files (``com.google.android.documentsui``): browse folders, create a folder, rename
and delete items (long press selects; the overflow menu renames)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from device.sim.apps.base import SimApp
from device.sim.dialogs import dialog, popup_menu
from device.sim.state import FileEntry
from device.sim.ui import Handler, Node, Page, Rect, Window
from device.sim.widgets import (
    FRAME,
    IMAGE,
    LINEAR,
    NAV_H,
    STATUS_H,
    TOOLBAR_H,
    Row,
    activity,
    edit_text,
    icon_button,
    label,
    scroll_list,
    toolbar,
)

if TYPE_CHECKING:
    from device.sim.phone import Phone

PKG = "com.google.android.documentsui"
RID = f"{PKG}:id/"
NAME_FIELD = f"{PKG}/name"


def _size(kb: int) -> str:
    return f"{kb / 1024:.2f} MB" if kb >= 1024 else f"{kb} kB"


class Files(SimApp):
    package = PKG
    label = "Files"

    def home(self) -> Page:
        return Page("folder", "")

    def build(self, phone: Phone, page: Page) -> Window:
        if page.name == "menu":
            return self._menu(phone)
        if page.name == "new_folder":
            return self._name_dialog(phone, "New folder", self._create(phone))
        if page.name == "rename":
            return self._name_dialog(phone, "Rename", self._rename(phone))
        if page.name == "file":
            return self._file(phone, page.arg)
        return self._folder(phone, page.arg)

    def back(self, phone: Phone, page: Page) -> bool:
        if page.name == "folder" and phone.ui.get("files_selected"):
            phone.ui["files_selected"] = ""
            return True
        return False

    def _folder(self, phone: Phone, folder: str) -> Window:
        w, h = phone.width, phone.height
        selected = phone.ui.get("files_selected", "")
        more = icon_button("More options", lambda: phone.push(Page("menu")), rid=RID + "menu_overflow")
        if selected:
            bar = toolbar(
                phone,
                PKG,
                "1 selected",
                up=lambda: phone.ui.__setitem__("files_selected", ""),
                actions=[icon_button("Delete", self._delete(phone), rid=RID + "action_menu_delete"), more],
                rid="toolbar",
            )
        else:
            title = folder.rsplit("/", 1)[-1] if folder else "Internal storage"
            bar = toolbar(phone, PKG, title, up=phone.pop if folder else None, actions=[more], rid="toolbar")
        entries = phone.state.files.children(folder)
        rows = [Row(190, partial(self._item, phone, e, e.path == selected)) for e in entries]
        box = (0, STATUS_H + TOOLBAR_H, w, h - NAV_H)
        lst = scroll_list(phone, phone.key(), box, rows, rid=RID + "dir_list")
        if not entries:
            lst.children = [
                label(
                    (66, box[1] + 300, w - 66, box[1] + 380),
                    "No items",
                    rid=RID + "message",
                    fit=False,
                    role="centered",
                )
            ]
        return activity(phone, PKG, [bar, Node(FRAME, box, rid=RID + "container_directory", children=[lst])])

    def _item(self, phone: Phone, entry: FileEntry, selected: bool, box: Rect) -> Node:
        _left, top, right, _bottom = box
        detail = "Folder" if entry.is_dir else _size(entry.size_kb)
        return Node(
            LINEAR,
            box,
            rid=RID + "item_root",
            selected=selected,
            on_tap=self._open(phone, entry),
            on_long=self._select(phone, entry),
            role="row",
            children=[
                Node(
                    IMAGE,
                    (44, top + 45, 144, top + 145),
                    rid=RID + "icon_mime",
                    role="glyph",
                    desc="Folder" if entry.is_dir else "",
                ),
                label((198, top + 30, right - 44, top + 100), entry.name, rid="android:id/title", fit=False),
                label(
                    (198, top + 100, right - 44, top + 160), detail, rid=RID + "size", role="summary", size=36
                ),
            ],
        )

    def _file(self, phone: Phone, path: str) -> Window:
        w = phone.width
        entry = next((e for e in phone.state.files.entries if e.path == path), None)
        name = entry.name if entry else path
        bar = toolbar(phone, PKG, name, up=phone.pop, rid="toolbar")
        body = [
            label(
                (66, STATUS_H + 300, w - 66, STATUS_H + 380),
                "No preview available",
                fit=False,
                role="centered",
            ),
            label(
                (66, STATUS_H + 400, w - 66, STATUS_H + 470),
                _size(entry.size_kb) if entry else "",
                fit=False,
                role="centered",
            ),
        ]
        return activity(phone, PKG, [bar, *body])

    def _menu(self, phone: Phone) -> Window:
        if phone.ui.get("files_selected"):
            return popup_menu(
                phone, PKG, [("Rename", self._start_rename(phone)), ("Delete", self._menu_delete(phone))]
            )
        return popup_menu(phone, PKG, [("New folder", self._start_new(phone)), ("Select all", phone.pop)])

    def _name_dialog(self, phone: Phone, title: str, ok: Handler) -> Window:
        w = phone.width
        field = edit_text(
            phone, (132, 0, w - 132, 140), NAME_FIELD, hint="Folder name", rid="android:id/text1"
        )
        return dialog(
            phone,
            PKG,
            title,
            [Node(FRAME, (66, 0, w - 66, 160), children=[field])],
            buttons=[("Cancel", phone.pop), ("OK", ok)],
        )

    # -- actions -------------------------------------------------------------------

    def _folder_path(self, phone: Phone) -> str:
        stack = phone.stacks[PKG]
        folder = next(p for p in reversed(stack) if p.name == "folder")
        return folder.arg

    def _open(self, phone: Phone, entry: FileEntry) -> Handler:
        def run() -> None:
            if phone.ui.get("files_selected"):
                phone.ui["files_selected"] = entry.path
            elif entry.is_dir:
                phone.push(Page("folder", entry.path))
            else:
                phone.push(Page("file", entry.path))

        return run

    def _select(self, phone: Phone, entry: FileEntry) -> Handler:
        def run() -> None:
            phone.ui["files_selected"] = entry.path

        return run

    def _start_new(self, phone: Phone) -> Handler:
        def run() -> None:
            phone.pop()
            phone.push(Page("new_folder"))
            phone.set_field(NAME_FIELD, "", focus=True)

        return run

    def _start_rename(self, phone: Phone) -> Handler:
        def run() -> None:
            phone.pop()
            name = phone.ui["files_selected"].rsplit("/", 1)[-1]
            phone.push(Page("rename"))
            phone.set_field(NAME_FIELD, name, focus=True, select_all=True)

        return run

    def _taken(self, phone: Phone, path: str) -> bool:
        return any(e.path == path for e in phone.state.files.entries)

    def _create(self, phone: Phone) -> Handler:
        def run() -> None:
            name = phone.field_text(NAME_FIELD).strip().replace("/", "_")
            if not name:
                return
            folder = self._folder_path(phone)
            path = f"{folder}/{name}" if folder else name
            if self._taken(phone, path):
                return
            phone.state.files.entries.append(FileEntry(path, True))
            phone.pop()

        return run

    def _rename(self, phone: Phone) -> Handler:
        def run() -> None:
            name = phone.field_text(NAME_FIELD).strip().replace("/", "_")
            old = phone.ui.get("files_selected", "")
            if not name or not old:
                return
            parent = old.rsplit("/", 1)[0] if "/" in old else ""
            new = f"{parent}/{name}" if parent else name
            if new != old and self._taken(phone, new):
                return
            for e in phone.state.files.entries:
                if e.path == old:
                    e.path = new
                elif e.path.startswith(old + "/"):
                    e.path = new + e.path[len(old) :]
            phone.ui["files_selected"] = ""
            phone.pop()

        return run

    def _delete(self, phone: Phone) -> Handler:
        def run() -> None:
            old = phone.ui.get("files_selected", "")
            phone.state.files.entries = [
                e for e in phone.state.files.entries if e.path != old and not e.path.startswith(old + "/")
            ]
            phone.ui["files_selected"] = ""

        return run

    def _menu_delete(self, phone: Phone) -> Handler:
        def run() -> None:
            phone.pop()
            self._delete(phone)()

        return run
