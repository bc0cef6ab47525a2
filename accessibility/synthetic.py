"""Synthetic screens of any size, shaped like a Settings list, for benchmarks and stress tests."""

from __future__ import annotations

from latent_agent.accessibility.tree import Bounds, ScreenSize, UINode, UITree

PIXEL_SCREEN = ScreenSize(1080, 2400)


def settings_like_tree(nodes: int, *, screen: ScreenSize = PIXEL_SCREEN, row_height: int = 24) -> UITree:
    """A scrolling list of Settings-style rows with about ``nodes`` nodes in all.

    Each row is a clickable ``LinearLayout`` holding an icon, a title and a
    summary inside a nested layout, and a switch: six nodes. ``row_height``
    decides how many rows fall on screen: at the default of 24 px about 90
    rows (550 nodes) are on a 2,400-pixel screen and the rest lie below it, as
    in a long list; at 6 px a 2,000-node list fits on screen entirely.
    """
    rows: list[UINode] = []
    pkg = "com.android.settings"
    for i in range(max(1, nodes // 6)):
        top = 200 + i * row_height
        b = Bounds(0, top, screen.width, top + row_height)
        title = UINode(class_name="android.widget.TextView", text=f"Setting {i}", package=pkg,
                       resource_id=f"{pkg}:id/title", bounds=Bounds(160, top, 800, top + row_height // 2))
        summary = UINode(class_name="android.widget.TextView", text=f"Summary of setting {i}", package=pkg,
                         resource_id=f"{pkg}:id/summary",
                         bounds=Bounds(160, top + row_height // 2, 800, top + row_height))
        texts = UINode(class_name="android.widget.RelativeLayout", package=pkg,
                       bounds=Bounds(160, top, 800, top + row_height), children=(title, summary))
        icon = UINode(class_name="android.widget.ImageView", package=pkg, resource_id="android:id/icon",
                      bounds=Bounds(40, top, 120, top + row_height))
        switch = UINode(class_name="android.widget.Switch", package=pkg, checkable=True, checked=i % 2 == 0,
                        clickable=True, resource_id="android:id/switch_widget",
                        bounds=Bounds(900, top, 1040, top + row_height))
        rows.append(UINode(class_name="android.widget.LinearLayout", package=pkg, clickable=True, bounds=b,
                           children=(icon, texts, switch)))
    full = screen.as_bounds()
    lst = UINode(class_name="androidx.recyclerview.widget.RecyclerView", package=pkg, scrollable=True,
                 resource_id=f"{pkg}:id/recycler_view", bounds=Bounds(0, 200, screen.width, screen.height),
                 children=tuple(rows))
    root = UINode(class_name="android.widget.FrameLayout", package=pkg, bounds=full,
                  children=(UINode(class_name="android.widget.LinearLayout", package=pkg, bounds=full,
                                   children=(lst,)),))
    return UITree(roots=(root,), screen=screen)
