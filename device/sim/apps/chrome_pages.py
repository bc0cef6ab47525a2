"""The built-in web pages Chrome can show: the new-tab page, a shop (search, product,
cart, checkout), news, weather, a search-results page, history and an error page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, quote_plus, urlsplit

from latent_agent.device.sim.state import CartItem, ChromeState, Order
from latent_agent.device.sim.ui import Handler, Node
from latent_agent.device.sim.views import BUTTON, EDIT, TEXT, Row, label

if TYPE_CHECKING:
    from latent_agent.device.sim.phone import Phone

SHOP = "https://shop.example.com/"
NEWS = "https://news.example.com/"
WEATHER = "https://weather.example.com/"
NEWTAB = "chrome://newtab"
HISTORY = "chrome://history"
SHOP_FIELD = "chrome/shop_search"
VIEW = "android.view.View"


@dataclass(frozen=True, slots=True)
class Product:
    slug: str
    name: str
    price_cents: int
    blurb: str


PRODUCTS = (
    Product("wireless-headphones", "Wireless headphones", 5999, "Over-ear, 30 h battery, noise cancelling"),
    Product("bluetooth-speaker", "Bluetooth speaker", 3999, "Waterproof, 12 h playtime"),
    Product("usb-c-charger", "USB-C charger", 1999, "30 W fast charger"),
    Product("phone-case", "Phone case", 1499, "Shock-absorbing clear case"),
    Product("running-shoes", "Running shoes", 8900, "Lightweight trainers"),
    Product("yoga-mat", "Yoga mat", 2500, "6 mm non-slip mat"),
    Product("water-bottle", "Water bottle", 1250, "Insulated steel, 750 ml"),
    Product("coffee-maker", "Coffee maker", 7900, "12-cup programmable"),
    Product("desk-lamp", "Desk lamp", 2999, "LED, dimmable"),
    Product("backpack", "Backpack", 4999, "28 L laptop backpack"),
    Product("smart-watch", "Smart watch", 19900, "Heart rate, GPS, 5 day battery"),
    Product("notebook", "Notebook", 499, "A5 dotted, 120 pages"),
)
HEADLINES = (
    "City council approves new bike lanes",
    "Local team wins championship in overtime",
    "Tech company unveils foldable phone",
    "Farmers market returns this weekend",
    "Scientists map deep-sea coral reef",
    "Library extends weekend opening hours",
)


def money(cents: int) -> str:
    return f"${cents // 100}.{cents % 100:02d}"


def normalize(typed: str) -> str:
    """What Chrome loads for omnibox text: a URL as typed, else a Google search."""
    text = typed.strip()
    if text.startswith(("http://", "https://", "chrome://")):
        return text if urlsplit(text).path or text.startswith("chrome://") else text + "/"
    if " " not in text and "." in text:
        return "https://" + (text if "/" in text else text + "/")
    return "https://www.google.com/search?q=" + quote_plus(text)


def display_url(url: str) -> str:
    """The URL bar's short form (scheme and trailing slash dropped)."""
    if url.startswith("chrome://"):
        return "" if url == NEWTAB else url
    short = url.split("://", 1)[-1]
    return short[:-1] if short.endswith("/") else short


def title_of(url: str) -> str:
    parts = urlsplit(url)
    if url == NEWTAB:
        return "New tab"
    if url == HISTORY:
        return "History"
    return {
        "shop.example.com": "ShopExample",
        "news.example.com": "Example News",
        "weather.example.com": "Weather",
        "www.google.com": "Google Search",
    }.get(parts.netloc, parts.netloc)


URL_FIELD = "chrome/url"


def load_url(phone: Phone, url: str) -> None:
    """Open ``url`` in the current tab (the old URL goes on the tab's back list)."""
    chrome = phone.state.chrome
    tab = chrome.current_tab
    if tab.url != url:
        tab.back.append(tab.url)
    tab.url, tab.title = url, title_of(url)
    chrome.visited.append(url)
    phone.scroll.pop(f"chrome/web/{chrome.current}", None)
    phone.focus = ""


def focus_url_bar(phone: Phone) -> None:
    """Start editing the URL: the full address, all selected, so typing replaces it."""
    url = phone.state.chrome.current_url
    phone.set_field(URL_FIELD, "" if url == NEWTAB else url, focus=True, select_all=True)


class Web:
    """Builds the rows of a page; handlers act through a :class:`Navigate`."""

    def __init__(self, phone: Phone) -> None:
        self.phone = phone

    def rows(self, url: str, go: Navigate) -> list[Row]:
        parts = urlsplit(url)
        if url == NEWTAB:
            return self._newtab(go)
        if url == HISTORY:
            return [
                self._text(u, go=go.to(u), link=True) for u in reversed(self.phone.state.chrome.visited[-20:])
            ] or [self._text("No history")]
        if parts.netloc == "shop.example.com":
            return self._shop(parts.path, parse_qs(parts.query).get("q", [""])[0], go)
        if parts.netloc == "news.example.com":
            return [self._text("Example News", size=64), *(self._text(h, link=False) for h in HEADLINES)]
        if parts.netloc == "weather.example.com":
            days = (
                "Mon 18° Partly cloudy",
                "Tue 20° Sunny",
                "Wed 17° Showers",
                "Thu 16° Rain",
                "Fri 19° Sunny",
            )
            return [
                self._text("Mountain View, CA", size=64),
                self._text("18°C  Partly cloudy"),
                *(self._text(d) for d in days),
            ]
        if parts.netloc == "www.google.com":
            q = parse_qs(parts.query).get("q", [""])[0]
            hits = [
                (name, target)
                for name, target, words in (
                    ("ShopExample - Shop online", SHOP, ("shop", "buy", "cart", "store")),
                    ("Example News - Top stories", NEWS, ("news", "headline")),
                    ("Weather - Mountain View", WEATHER, ("weather", "forecast", "rain")),
                )
                if any(w in q.lower() for w in words)
            ]
            rows = [self._text(f"Results for {q}", size=48)]
            rows += [self._text(name, go=go.to(target), link=True) for name, target in hits]
            return rows if hits else [*rows, self._text("Your search did not match any documents.")]
        return [
            self._text("This site can't be reached", size=56),
            self._text(f"Check if there is a typo in {parts.netloc or url}."),
            self._text("DNS_PROBE_FINISHED_NXDOMAIN"),
        ]

    # -- building blocks -----------------------------------------------------

    def _text(self, text: str, *, go: Handler | None = None, link: bool = False, size: int = 42) -> Row:
        cls = VIEW if link else TEXT
        height = 150 if size <= 48 else 190
        return Row(
            height,
            lambda b: Node(
                cls,
                (b[0] + 66, b[1] + 30, b[2] - 66, b[3] - 30),
                text=text,
                on_tap=go,
                role="link" if link else ("title" if size > 48 else ""),
            ),
        )

    def _button(self, text: str, go: Handler | None, enabled: bool = True) -> Row:
        return Row(
            170,
            lambda b: Node(
                BUTTON,
                (b[0] + 66, b[1] + 25, b[0] + 66 + max(300, len(text) * 30 + 80), b[3] - 25),
                text=text,
                on_tap=go if enabled else None,
                enabled=enabled,
                role="button",
            ),
        )

    def _newtab(self, go: Navigate) -> list[Row]:
        tiles = (("ShopExample", SHOP), ("News", NEWS), ("Weather", WEATHER))
        rows = [
            Row(
                260,
                lambda b: label(
                    (b[0] + 66, b[1] + 80, b[2] - 66, b[3] - 40),
                    "Google",
                    role="headline",
                    size=96,
                    fit=False,
                ),
            ),
            Row(
                190,
                lambda b: Node(
                    EDIT,
                    (b[0] + 66, b[1] + 25, b[2] - 66, b[3] - 25),
                    hint="Search or type URL",
                    rid="com.android.chrome:id/search_box_text",
                    on_tap=go.focus_omnibox,
                    role="searchbar",
                ),
            ),
        ]
        rows += [self._text(name, go=go.to(url), link=True) for name, url in tiles]
        return rows

    def _shop(self, path: str, query: str, go: Navigate) -> list[Row]:
        chrome = self.phone.state.chrome
        header = [
            self._text("ShopExample", size=64),
            Row(
                150,
                lambda b: Node(
                    VIEW,
                    (b[2] - 420, b[1] + 20, b[2] - 66, b[3] - 20),
                    text=f"Cart ({chrome.cart_count})",
                    desc="Cart",
                    on_tap=go.to(SHOP + "cart"),
                    role="link",
                ),
            ),
        ]
        search = [
            Row(
                180,
                lambda b: Node(
                    EDIT,
                    (b[0] + 66, b[1] + 25, b[2] - 340, b[3] - 25),
                    text=self.phone.field_text(SHOP_FIELD),
                    hint="Search products",
                    field=SHOP_FIELD,
                    focused=self.phone.focus == SHOP_FIELD,
                    on_enter=go.shop_search,
                    role="edit",
                ),
            ),
            self._button("Search", go.shop_search),
        ]
        if path in ("", "/"):
            return [
                *header,
                *search,
                self._text("Featured", size=56),
                *(self._product_row(p, go) for p in PRODUCTS),
            ]
        if path == "/search":
            hits = [
                p for p in PRODUCTS if query.lower() in p.name.lower() or query.lower() in p.blurb.lower()
            ]
            rows = [*header, *search, self._text(f'{len(hits)} results for "{query}"', size=48)]
            return rows + [self._product_row(p, go) for p in hits]
        if path.startswith("/product/"):
            product = next((p for p in PRODUCTS if p.slug == path[9:]), None)
            if product is None:
                return [*header, self._text("Product not found")]
            return [
                *header,
                self._text(product.name, size=64),
                self._text(money(product.price_cents)),
                self._text(product.blurb),
                self._button("Add to cart", go.add(product)),
            ]
        if path == "/cart":
            rows = [*header, self._text("Your cart", size=64)]
            for item in chrome.cart:
                rows.append(
                    self._text(f"{item.product} × {item.quantity}  {money(item.price_cents * item.quantity)}")
                )
                rows.append(self._button(f"Remove {item.product}", go.remove(item.product)))
            if not chrome.cart:
                rows.append(self._text("Your cart is empty"))
            total = sum(i.price_cents * i.quantity for i in chrome.cart)
            rows += [
                self._text(f"Total: {money(total)}"),
                self._button("Clear cart", go.clear_cart, bool(chrome.cart)),
                self._button("Checkout", go.to(SHOP + "checkout"), bool(chrome.cart)),
            ]
            return rows
        if path == "/checkout":
            total = sum(i.price_cents * i.quantity for i in chrome.cart)
            return [
                *header,
                self._text("Checkout", size=64),
                self._text("Ship to: Alex Kim, 1600 Amphitheatre Pkwy"),
                self._text("Pay with: Visa •••• 4242"),
                self._text(f"Order total: {money(total)}"),
                self._button("Place order", go.place_order, bool(chrome.cart)),
            ]
        if path.startswith("/order/"):
            return [
                *header,
                self._text("Thank you!", size=64),
                self._text(f"Your order #{path[7:]} has been placed."),
            ]
        return [*header, self._text("Page not found")]

    def _product_row(self, p: Product, go: Navigate) -> Row:
        def build(b: tuple[int, int, int, int]) -> Node:
            _left, top, right, _bottom = b
            return Node(
                "android.view.View",
                b,
                children=[
                    Node(
                        VIEW,
                        (66, top + 20, right - 420, top + 100),
                        text=p.name,
                        on_tap=go.to(SHOP + "product/" + p.slug),
                        role="link",
                    ),
                    Node(
                        TEXT,
                        (66, top + 110, right - 420, top + 180),
                        text=f"{money(p.price_cents)} · {p.blurb}",
                        role="summary",
                    ),
                    Node(
                        BUTTON,
                        (right - 400, top + 40, right - 66, top + 160),
                        text="Add to cart",
                        desc=f"Add {p.name} to cart",
                        on_tap=go.add(p),
                        role="button",
                    ),
                ],
            )

        return Row(220, build)


class Navigate:
    """The actions web pages can take, bound to one phone."""

    def __init__(self, phone: Phone) -> None:
        self.phone = phone

    @property
    def chrome(self) -> ChromeState:
        return self.phone.state.chrome

    def to(self, url: str) -> Handler:
        return lambda: load_url(self.phone, url)

    def focus_omnibox(self) -> None:
        focus_url_bar(self.phone)

    def shop_search(self) -> None:
        query = self.phone.field_text(SHOP_FIELD).strip()
        self.chrome.shop_searches.append(query)
        load_url(self.phone, SHOP + "search?q=" + quote_plus(query))

    def add(self, p: Product) -> Handler:
        def run() -> None:
            for item in self.chrome.cart:
                if item.product == p.name:
                    item.quantity += 1
                    return
            self.chrome.cart.append(CartItem(p.name, p.price_cents))

        return run

    def remove(self, name: str) -> Handler:
        def run() -> None:
            self.chrome.cart = [i for i in self.chrome.cart if i.product != name]

        return run

    def clear_cart(self) -> None:
        self.chrome.cart = []

    def place_order(self) -> None:
        chrome = self.chrome
        number = 1001 + len(chrome.orders)
        total = sum(i.price_cents * i.quantity for i in chrome.cart)
        chrome.orders.append(Order(number, list(chrome.cart), total))
        chrome.cart = []
        load_url(self.phone, f"{SHOP}order/{number}")
