"""What kind of thing a name is, where the small NER model guesses wrong.

The statistical model tags "CTO" and "PDF" as organisations, "Dunmore Foods" as a work of
art and a hosting service as a place. Closed lists settle the common cases:

- job titles and roles are attributes of a person, never entities ("CTO", "Head of Sales");
- file formats, tools and products are ``system`` ("PDF", "Slack", "Google Drive");
- a name ending in an organisation word is an ``org`` ("Dunmore Foods", "Brightpath Media");
- what something is hosted on or deployed to is a ``system`` ("hosted on Hetzner").

>>> kind_of("CTO"), kind_of("PDF"), kind_of("Dunmore Foods")
(None, <EntityType.SYSTEM: 'system'>, <EntityType.ORG: 'org'>)
"""

from __future__ import annotations

import re

from core.text import normalize_name
from core.types import EntityType

TITLES = frozenset(
    {"ceo", "cto", "cfo", "coo", "cmo", "cio", "ciso", "cpo", "vp", "svp", "evp", "md", "pm",
     "hr", "qa", "seo", "head of sales", "head of marketing", "head of procurement",
     "head of engineering", "head of product", "head of design", "head of hr",
     "head of operations", "managing director", "general manager", "product manager",
     "project manager", "account manager", "art director", "creative director"}
)  # fmt: skip
FORMATS = frozenset(
    {"pdf", "csv", "json", "xml", "html", "docx", "doc", "xlsx", "xls", "pptx", "ppt", "png",
     "jpg", "jpeg", "gif", "svg", "zip", "txt", "md", "yaml", "yml", "sql", "api", "url",
     "mp3", "mp4", "wav", "eps", "psd", "ai", "tiff", "rtf", "odt", "epub"}
)  # fmt: skip
TOOLS = frozenset(
    {"slack", "notion", "jira", "confluence", "trello", "asana", "figma", "sketch",
     "photoshop", "illustrator", "excel", "word", "powerpoint", "google drive",
     "google docs", "google sheets", "dropbox", "github", "gitlab", "bitbucket", "zoom",
     "teams", "microsoft teams", "outlook", "gmail", "wordpress", "shopify", "salesforce",
     "hubspot", "mailchimp", "stripe", "quickbooks", "xero", "canva", "airtable", "zapier",
     "docker", "kubernetes", "postgres", "postgresql", "mysql", "redis", "aws", "heroku",
     "netlify", "vercel", "hetzner", "digitalocean", "cloudflare", "linode", "azure", "gcp",
     "google analytics", "search console", "ahrefs", "semrush", "chatgpt", "whatsapp"}
)  # fmt: skip
ORG_SUFFIXES = frozenset(
    {"foods", "media", "labs", "lab", "inc", "ltd", "llc", "plc", "gmbh", "group", "partners",
     "studio", "studios", "agency", "bank", "holdings", "solutions", "consulting",
     "ventures", "capital", "technologies", "industries", "logistics", "pharma", "foundation",
     "trust", "associates", "company", "co", "corp", "corporation", "limited", "systems",
     "digital", "marketing", "publishing", "press", "records", "brewing", "bakery", "motors",
     "insurance", "energy", "legal", "law", "architects", "design", "analytics", "network"}
)  # fmt: skip
# Roles only an organisation plays: "Adyen is our payment provider", "Globex is our vendor".
ORG_ROLES = frozenset(
    {"provider", "vendor", "supplier", "processor", "platform", "host", "bank", "agency",
     "registrar", "carrier", "insurer", "lender", "distributor", "reseller", "wholesaler",
     "manufacturer", "publisher", "broker", "competitor", "firm", "company", "acquirer"}
)  # fmt: skip
_HOSTED = re.compile(
    r"\b(?:host(?:ed|s|ing)?|deploy(?:ed|s|ing)?|migrat(?:e|ed|es|ing)|mov(?:e|ed|es|ing)|running|runs)"
    r"(?:\s+\w+){0,3}?\s+(?:on|to)\s+([A-Z][\w.-]*(?:\s+[A-Z][\w.-]*)?)"
)


def is_title(text: str) -> bool:
    """A job title or role ("CTO", "head of procurement"): an attribute, not an entity."""
    return normalize_name(text) in TITLES


def kind_of(text: str) -> EntityType | None:
    """The type the closed lists give ``text`` (None: they say nothing)."""
    norm = normalize_name(text)
    if norm in FORMATS or norm in TOOLS:
        return EntityType.SYSTEM
    words = norm.split()
    if len(words) > 1 and words[-1] in ORG_SUFFIXES:
        return EntityType.ORG
    return None


def hosted_names(text: str) -> set[str]:
    """Names something is hosted on, deployed or migrated to: systems, not places."""
    return {m.group(1).rstrip(".") for m in _HOSTED.finditer(text)}
