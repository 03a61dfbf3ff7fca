"""An entity's declared tags: what a text stated of it, kept as ``prefix:value``.

"Peter is one of our writers" tags Peter ``role:writer``; "my cousin Sarah" tags Sarah
``related_to_speaker:cousin`` (``linking.py`` writes them). ``identity.py`` weighs a
same-named candidate on them and ``describe.py`` tells candidates apart by them.
"""

ROLE = "role:"
KIN = "related_to_speaker:"
