"""Files (``com.google.android.documentsui``): browse folders, create a folder, rename
and delete items.

An item is renamed or deleted two ways, as in Files by Google: its row's own overflow
button ("More options for notes.txt") opens a menu for that item, or a long press selects
it and the toolbar's overflow menu acts on the selection. The per-row button is what an
agent limited to taps (the method's action set has no long press) can use.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from latent_agent.device.sim.apps.base import SimApp
from latent_agent.device.sim.dialogs import dialog, popup_menu
from latent_agent.device.sim.state import FileEntry
from latent_agent.device.sim.ui import Handler, Node, Page, Rect, Window
from latent_agent.device.sim.views import (
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
    from latent_agent.device.sim.phone import Phone

PKG = "com.google.android.documentsui"
RID = f"{PKG}:id/"
NAME_FIELD = f"{PKG}/name"
#: Height of one file row; the row's overflow button is a 132 px square centred in it.
ROW_H = 190
ICON_BUTTON = 132


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
        if page.name == "item_menu":
            return self._item_menu(phone, page.arg)
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
        rows = [Row(ROW_H, partial(self._item, phone, e, e.path == selected)) for e in entries]
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
        pad = (ROW_H - ICON_BUTTON) // 2
        more = icon_button(
            # Named after its file: every row has one, and a screen reader (or an agent
            # reading the tree) must be able to tell them apart.
            f"More options for {entry.name}",
            self._open_item_menu(phone, entry, top),
            rid=RID + "item_overflow",
            box=(right - 44 - ICON_BUTTON, top + pad, right - 44, top + pad + ICON_BUTTON),
        )
        text_right = right - 66 - ICON_BUTTON
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
                label((198, top + 30, text_right, top + 100), entry.name, rid="android:id/title", fit=False),
                label(
                    (198, top + 100, text_right, top + 160), detail, rid=RID + "size", role="summary", size=36
                ),
                more,
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
        selected = phone.ui.get("files_selected", "")
        if selected:
            return popup_menu(
                phone,
                PKG,
                [("Rename", self._start_rename(phone, selected)), ("Delete", self._menu_delete(phone, selected))],
            )
        return popup_menu(phone, PKG, [("New folder", self._start_new(phone)), ("Select all", phone.pop)])

    def _item_menu(self, phone: Phone, path: str) -> Window:
        """The menu of one row's overflow button, drawn over the row it was opened from."""
        items = [
            ("Select", self._menu_select(phone, path)),
            ("Rename", self._start_rename(phone, path)),
            ("Delete", self._menu_delete(phone, path)),
        ]
        anchor = int(phone.ui.get("files_menu_top", str(STATUS_H + TOOLBAR_H)))
        # A menu that would run into the gesture bar opens upwards instead, as PopupMenu does.
        lowest = phone.height - NAV_H - 48 - len(items) * 138
        return popup_menu(phone, PKG, items, top=max(STATUS_H, min(anchor, lowest)))

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

    def _open_item_menu(self, phone: Phone, entry: FileEntry, top: int) -> Handler:
        def run() -> None:
            phone.ui["files_menu_top"] = str(top)
            phone.push(Page("item_menu", entry.path))

        return run

    def _menu_select(self, phone: Phone, path: str) -> Handler:
        def run() -> None:
            phone.pop()
            phone.ui["files_selected"] = path

        return run

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

    def _start_rename(self, phone: Phone, path: str) -> Handler:
        def run() -> None:
            phone.pop()
            phone.ui["files_target"] = path
            phone.push(Page("rename"))
            phone.set_field(NAME_FIELD, path.rsplit("/", 1)[-1], focus=True, select_all=True)

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
            old = phone.ui.get("files_target", "")
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
            phone.ui["files_target"] = ""
            # Renaming from the selection ends selection mode, as does renaming what was
            # selected (its old path is gone); another file's selection stays.
            selected = phone.ui.get("files_selected", "")
            if selected == old or selected.startswith(old + "/"):
                phone.ui["files_selected"] = ""
            phone.pop()

        return run

    def _delete(self, phone: Phone) -> Handler:
        def run() -> None:
            self._remove(phone, phone.ui.get("files_selected", ""))

        return run

    def _menu_delete(self, phone: Phone, path: str) -> Handler:
        def run() -> None:
            phone.pop()
            self._remove(phone, path)

        return run

    def _remove(self, phone: Phone, old: str) -> None:
        if not old:
            return
        phone.state.files.entries = [
            e for e in phone.state.files.entries if e.path != old and not e.path.startswith(old + "/")
        ]
        selected = phone.ui.get("files_selected", "")
        if selected == old or selected.startswith(old + "/"):
            phone.ui["files_selected"] = ""
