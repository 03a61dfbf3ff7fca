"""The made-up world of ``bench.identity``: first names shared by many people, surnames,
organisations, roles, relations, cities, topics and the day the conversations start."""

from __future__ import annotations

import random

DAY = 86_400.0
T0 = 1_609_459_200.0  # 2021-01-01
SHARED = ("Peter", "Sarah")


def _words(text: str, sep: str | None = None) -> list[str]:
    return text.split(sep)


OTHERS = _words(
    "Anna Marco Lena Omar Sofia Jonas Priya Liam Chen Maya Felix Nora Hugo Ines Karl Zara Ivan "
    "Leila Tomas Elsa Ravi Greta Pablo Yuki Amir Clara Dmitri Hanna Luca Mira Oscar Rosa Teo "
    "Vera Emil Ada Bruno Dora Kofi Lotte"
)
_S1 = _words("Ok Bran Hal Nov Mur Fen Dal Kes Lor Var Bel Cor Dun Ash Mer Tal Rin Sor Vel Qui")
_S2 = _words("afor dt ley ak phy wick stone ford mere holt by croft ton ridge well dale ski ova ez")
_O1 = _words(
    "Brightpath Dunmore Kestrel Northwind Harbour Ironleaf Bluefin Silverline Oakridge Redcliff "
    "Greenway Stonebridge Clearwater Highgate Fairhaven Westmoor Eastgate Larkspur Copperfield "
    "Maplewood Thornbury Ashford Riverside Goldcrest Whitehall"
)
_O2 = _words("Media Foods Labs Partners Logistics Consulting Digital Studio Group Ventures")
ROLES = _words(
    "designer,copywriter,SEO lead,accountant,developer,project manager,editor,photographer,"
    "lawyer,recruiter,data analyst,sales director,office manager,translator,illustrator,"
    "product owner,engineer,consultant,buyer,marketing lead",
    ",",
)
KIN = _words("cousin sister brother neighbour friend aunt uncle niece nephew flatmate")
CITIES = _words("Cork Galway Lisbon Porto Leeds Bristol Lyon Ghent Bergen Turin")
TOPICS = _words("budget,invoice,logo drafts,contract,style guide,launch plan,report,quote", ",")
VAGUE = ("Call {} tomorrow.", "Email {} later.", "Ping {}.", "Remind {} about it.", "Thank {}.")
VERBS = _words("approved,reviewed,sent,questioned,signed off,rejected,updated,shared", ",")


def shuffled_surnames(rng: random.Random) -> list[str]:
    out = [a + b for a in _S1 for b in _S2]
    rng.shuffle(out)
    return out


def shuffled_orgs(rng: random.Random) -> list[str]:
    out = [f"{a} {b}" for a in _O1 for b in _O2]
    rng.shuffle(out)
    return out
