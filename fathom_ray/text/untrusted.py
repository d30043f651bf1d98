"""Pages and documents are untrusted: make them safe to put inside a prompt as data.

- invisible and bidirectional-control characters are stripped;
- our own delimiter tags and chat-template control tokens are neutralised inside the content,
  so a page cannot close its frame or open a new turn;
- secrets in page text (API keys, tokens, private keys) are redacted;
- instruction-like content is flagged (reported to the caller, never blocked: the judge is told
  sources are data, and the flags travel with the page for the record).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

FRAME_TAG = "source"
INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f]"
)
DELIMITERS = re.compile(
    r"<\s*(/?)\s*(source|sources|document|instructions|system|user|assistant)\b([^>]*)>", re.I
)
CONTROL_TOKENS = re.compile(
    r"<\|([^|>]{0,40})\|>|\[/?INST\]|<</?SYS>>|<\|?(?:im_start|im_end|endoftext)\|?>", re.I
)
INSTRUCTION_LIKE = {
    "override": re.compile(
        r"\b(ignore|disregard|forget|override)\b.{0,40}\b(previous|prior|above|earlier|all|your)\b.{0,20}"
        r"\b(instructions?|prompts?|rules?|directions?)",
        re.I | re.S,
    ),
    "role_play": re.compile(r"\byou are now\b|\bact as (?:an?|the)\b|\bpretend to be\b", re.I),
    "prompt_probe": re.compile(r"\b(system prompt|developer message|hidden instructions?)\b", re.I),
    "new_instructions": re.compile(r"\b(new|updated|real) instructions?\s*:", re.I),
    "chat_markup": re.compile(r"<\|[a-z_]+\|>|\[/?INST\]|^\s*(system|assistant)\s*:", re.I | re.M),
}
SECRETS = (
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.S),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}\b"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
    re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b"),
    re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"),
    re.compile(r"\b[Bb]earer\s+[A-Za-z0-9._~+/-]{20,}=*"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b"),
)
REDACTED = "[redacted secret]"
_DEFANG = str.maketrans({"<": "(", ">": ")", "[": "(", "]": ")", "|": "¦"})


@dataclass(frozen=True, slots=True)
class SafeText:
    """Untrusted text made safe for a prompt, with what was found in it."""

    text: str
    flags: tuple[str, ...] = ()
    redactions: int = 0
    truncated: bool = False


def strip_invisible(text: str) -> str:
    """Drop zero-width, bidi-control, tag and other invisible characters; normalise to NFKC."""
    return INVISIBLE.sub("", unicodedata.normalize("NFKC", text))


def neutralise(text: str) -> str:
    """Defang our frame tags and chat control tokens so the content cannot leave its frame."""
    text = DELIMITERS.sub(lambda m: f"[{m.group(1)}{m.group(2)}{m.group(3)}]", text)
    return CONTROL_TOKENS.sub(lambda m: m.group(0).translate(_DEFANG), text)


def redact_secrets(text: str) -> tuple[str, int]:
    count = 0
    for pattern in SECRETS:
        text, found = pattern.subn(REDACTED, text)
        count += found
    return text, count


def instruction_flags(text: str) -> tuple[str, ...]:
    """Labels of the instruction-like patterns found in ``text`` (mechanical, for the record)."""
    return tuple(label for label, pattern in INSTRUCTION_LIKE.items() if pattern.search(text))


def make_safe(text: str, max_chars: int) -> SafeText:
    """Everything above, in order, then cut to ``max_chars``."""
    cleaned = strip_invisible(text)
    flags = instruction_flags(cleaned)
    cleaned, redactions = redact_secrets(neutralise(cleaned))
    truncated = len(cleaned) > max_chars
    return SafeText(cleaned[:max_chars], flags, redactions, truncated)


def frame(source_id: str, url: str, title: str, body: str) -> str:
    """One source inside its data frame; attribute values are made safe too."""
    safe_title = neutralise(strip_invisible(title)).replace('"', "'")[:300]
    safe_url = url.replace('"', "%22")
    return f'<{FRAME_TAG} id="{source_id}" url="{safe_url}" title="{safe_title}">\n{body}\n</{FRAME_TAG}>'


# Markup: a closing tag, a tag with attributes, a tag of an element a page is built of, a comment, a
# markdown image or link. A bare placeholder in angle brackets ("lib/<multiarch-tuple>", "git add
# <path>", "<option>") is how documentation writes a value to fill in, not markup.
_ELEMENTS = (
    "a|abbr|audio|b|base|blockquote|body|br|button|canvas|center|div|em|embed|font|form|frame|frameset|"
    "h[1-6]|head|hr|html|i|iframe|img|input|li|link|math|meta|noscript|object|ol|p|pre|script|select|"
    "span|strong|style|svg|table|tbody|td|textarea|th|thead|tr|u|ul|video"
)
_MARKUP = re.compile(
    rf"</[a-z][a-z0-9-]*\s*>|<[a-z][a-z0-9-]*[\s/][^<>]*=[^<>]*>|<(?:{_ELEMENTS})\s*/?>"
    r"|!\[[^\]]*\]\(|\[[^\]]*\]\(\s*[a-z]+:|<!--",
    re.I,
)
_ACTIVE_LINK = re.compile(r"\b(javascript|vbscript)\s*:|\bdata:[a-z]+/|\bfile:/", re.I)


def unfit_for_fact(text: str) -> str | None:
    """Why ``text`` may never be a fact (instruction-like, markup, an image, an active link, a secret)."""
    cleaned = strip_invisible(text)
    if cleaned != unicodedata.normalize("NFKC", text):
        return "invisible characters"
    if flags := instruction_flags(cleaned):
        return f"instruction-like ({', '.join(flags)})"
    if _MARKUP.search(cleaned) or CONTROL_TOKENS.search(cleaned) or DELIMITERS.search(cleaned):
        return "markup"
    if _ACTIVE_LINK.search(cleaned):
        return "active link"
    if redact_secrets(cleaned)[1]:
        return "secret"
    return None
