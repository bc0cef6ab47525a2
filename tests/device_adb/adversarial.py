"""200 strings that break naive shell quoting or ``input text``, generated deterministically."""

from __future__ import annotations

import random

HAND_PICKED = [
    " ",
    "  leading and trailing  ",
    "'",
    '"',
    "\\",
    "\\'",
    "'\"'\"'",
    "$(touch /sdcard/pwned)",
    "`touch /sdcard/pwned`",
    "; touch /sdcard/pwned",
    "&& touch /sdcard/pwned",
    "|| touch /sdcard/pwned",
    "| touch /sdcard/pwned",
    "> /sdcard/pwned",
    "< /sdcard/nothing",
    "& touch /sdcard/pwned &",
    "$HOME",
    "${HOME}",
    "$?",
    "$$",
    "$0",
    "%s",
    "%%s",
    "100%",
    "%",
    "a%sb",
    "%s%s%s",
    "%%",
    "%S",
    "*",
    "/sdcard/*",
    "?",
    "[a-z]",
    "~",
    "~/x",
    "#not a comment",
    "a # b",
    "!",
    "!!",
    "{a,b}",
    "(",
    ")",
    "x=1",
    "-d 5",
    "--help",
    "\n",
    "\t",
    "line1\nline2",
    "tab\there",
    "\r\n",
    "é",
    "naïve café",
    "日本語テキスト",
    "👋🏽",
    "👨‍👩‍👧‍👦",
    "שלום עולם",
    "مرحبا بالعالم",
    "\u202eRTL override\u202c",
    "zero\u200bwidth\u200djoin",
    "Ω≈ç√∫",
    "a\\nb",
    "\\$(x)",
    "'$(touch /sdcard/pwned)'",
    '"$(touch /sdcard/pwned)"',
    "\\`id\\`",
    "$'\\x41'",
    "eval 'touch /sdcard/pwned'",
    "exit 1",
    "input keyevent 3",
    "\u00a0nbsp",
    "emoji 🎉 end",
]
_ALPHABET = (
    list("abcXYZ0189 ")
    + list("'\"\\$`;&|<>(){}[]*?~#!%=-^,.:/@+")
    + ["%s", "$(", "${", "&&", "||", "\n", "\t"]
    + list("éüßñçøΩж中文日本한")
    + ["👋", "🎉", "👍🏽", "🇫🇷"]
    + list("שלוםمرحبا")
    + ["\u200f", "\u202e"]
)


def adversarial_strings(n: int = 200, seed: int = 20240601) -> list[str]:
    """``n`` strings: the hand-picked ones, three 1,000-character ones, then random mixtures."""
    rng = random.Random(seed)
    long_ascii = "".join(rng.choice(list("ab '\"\\$`;&|<>()*?%s~#!")) for _ in range(1000))
    long_unicode = "".join(rng.choice(_ALPHABET) for _ in range(1000))[:1000]
    out = [*HAND_PICKED, long_ascii, long_unicode, "%s" * 500]
    while len(out) < n:
        out.append("".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 40))))
    return out[:n]
