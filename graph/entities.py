"""Entity operations of a tenant: aliases, relationships, recorded (undoable) merges, erase."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.clock import now
from core.errors import Conflict, InvalidInput, NotFound
from core.ids import new_id
from core.text import normalize_name
from core.types import Entity, EntityMerge, EntityRelation, EntityType
from graph.records import entity_from, merge_from, relation_from
from graph.scoped import Scoped

MAX_NAME = 200


def _alias_norm(alias: str) -> str:
    if not isinstance(alias, str) or not alias.strip():
        raise InvalidInput("an alias or name must not be empty", field="alias")
    if len(alias) > MAX_NAME:
        raise InvalidInput(f"an alias or name is limited to {MAX_NAME} characters", field="alias")
    norm = normalize_name(alias)
    if not norm:
        raise InvalidInput(f"alias {alias!r} has no letters or digits", field="alias")
    return norm


def alias_row(tenant_id: str, text: str) -> dict[str, str]:
    """An ``Alias`` node's properties: keyed "<tenant>|<normalized alias>" (one unique-index
    hit inside the tenant)."""
    norm = _alias_norm(text)
    return {"key": f"{tenant_id}|{norm}", "norm": norm, "text": text}


def _entity_row(
    texts: list[str],
    type: EntityType,
    parent_id: str | None,
    context_tags: Sequence[str],
    at: float | None,
) -> dict[str, Any]:
    when = now() if at is None else at
    row: dict[str, Any] = {
        "id": new_id(),
        "name": texts[0],
        "type": EntityType(type).value,
        "aliases": texts,
        "parent_id": parent_id,
        "context_tags": list(context_tags),
        "first_seen": when,
        "last_seen": when,
    }
    return {k: v for k, v in row.items() if v is not None}


class EntityOps(Scoped):
    def _alias_key(self, norm: str) -> str:
        return f"{self.tenant_id}|{norm}"

    def _alias_row(self, text: str) -> dict[str, str]:
        return alias_row(self.tenant_id, text)

    async def create_entity(
        self,
        name: str,
        type: EntityType,
        aliases: Sequence[str] = (),
        parent_id: str | None = None,
        context_tags: Sequence[str] = (),
        at: float | None = None,
    ) -> Entity:
        """Create an entity; its name is always one of its aliases."""
        texts = list(dict.fromkeys([name.strip() if isinstance(name, str) else name, *aliases]))
        alias_rows = [self._alias_row(t) for t in texts]
        if parent_id is not None:
            await self.get_entity(parent_id)
        row = _entity_row(texts, type, parent_id, context_tags, at)
        rows = await self.write("entity_create", row=row, aliases=alias_rows)
        return entity_from(rows[0]["e"])

    async def create_entity_once(
        self, name: str, type: EntityType, agree: EntityType | None, at: float | None = None
    ) -> tuple[Entity, bool]:
        """The entity ``name`` names, else a new one of ``type``: (entity, created). ``name``
        names an entity when exactly one has it as an alias (of type ``agree`` when some do;
        merges followed). The check and the creation are one transaction that concurrent
        calls for the same name take in turn, in any process."""
        text = name.strip() if isinstance(name, str) else name
        alias = self._alias_row(text)
        row = _entity_row([text], type, None, (), at)
        agreeing = None if agree is None else EntityType(agree).value
        rows = await self.write("entity_create_once", row=row, alias=alias, type=agreeing)
        return entity_from(rows[0]["e"]), bool(rows[0]["created"])

    async def add_alias(self, entity_id: str, alias: str) -> Entity:
        norm = _alias_norm(alias)
        rows = await self.write(
            "entity_add_alias",
            entity_id=entity_id,
            key=self._alias_key(norm),
            norm=norm,
            text=alias.strip(),
        )
        if not rows:
            raise NotFound("entity", entity_id)
        return await self.get_entity(entity_id)

    async def find_by_alias(self, alias: str) -> list[Entity]:
        """Entities called ``alias`` (case-, accent-, punctuation-insensitive), merges followed."""
        norm = normalize_name(alias) if isinstance(alias, str) else ""
        if not norm:
            return []
        rows = await self.read("entity_by_alias", key=self._alias_key(norm))
        found = [entity_from(r["e"]) for r in rows]
        return sorted(found, key=lambda e: (e.first_seen, e.id))

    async def get_entities(self, ids: Sequence[str]) -> dict[str, Entity]:
        if not ids:
            return {}
        rows = await self.read("entity_get", ids=list(dict.fromkeys(ids)))
        return {r["e"]["id"]: entity_from(r["e"]) for r in rows}

    async def get_entity(self, entity_id: str) -> Entity:
        found = await self.get_entities([entity_id])
        if entity_id not in found:
            raise NotFound("entity", entity_id)
        return found[entity_id]

    async def update_entity(self, entity_id: str, **props: Any) -> Entity:
        """Set profile fields (profile_summary, profile_embedding, context_tags, parent_id ...)."""
        allowed = {
            "name",
            "parent_id",
            "profile_summary",
            "profile_embedding",
            "context_tags",
            "last_seen",
        }
        unknown = set(props) - allowed
        if unknown:
            raise InvalidInput(f"cannot update entity fields {sorted(unknown)}")
        rows = await self.write("entity_update", id=entity_id, props=props)
        if not rows:
            raise NotFound("entity", entity_id)
        return entity_from(rows[0]["e"])

    async def relate(
        self,
        source_id: str,
        target_id: str,
        relation: str,
        since: float | None = None,
        until: float | None = None,
        source_memory_id: str | None = None,
    ) -> EntityRelation:
        if not relation or not relation.strip():
            raise InvalidInput("a relation name is required", field="relation")
        if since is not None and until is not None and until < since:
            raise InvalidInput("until is before since", field="until")
        rel = EntityRelation(
            id=new_id(),
            source_id=source_id,
            target_id=target_id,
            relation=relation.strip(),
            since=since,
            until=until,
            source_memory_id=source_memory_id,
        )
        if not await self.write("entity_relate", row=rel.model_dump()):
            raise await self._missing_end(source_id, target_id)
        return rel

    async def relate_once(
        self,
        source_id: str,
        target_id: str,
        relation: str,
        since: float | None = None,
        source_memory_id: str | None = None,
        set_parent: bool = False,
    ) -> tuple[bool, Entity]:
        """Relate ``source_id`` to ``target_id`` unless it already is (by this relation), in
        one statement; ``set_parent``: a new relation also makes the target the parent of a
        source without one. Returns whether the relation is new, and the source as it is now.

        Raises:
            NotFound: either entity is not in this tenant.
        """
        rel = EntityRelation(
            id=new_id(),
            source_id=source_id,
            target_id=target_id,
            relation=relation,
            since=since,
            source_memory_id=source_memory_id,
        )
        rows = await self.write("entity_relate_once", row=rel.model_dump(), set_parent=set_parent)
        if not rows:
            raise await self._missing_end(source_id, target_id)
        return bool(rows[0]["created"]), entity_from(rows[0]["e"])

    async def _missing_end(self, source_id: str, target_id: str) -> NotFound:
        """Which end of a relation that matched nothing is not in this tenant."""
        missing = {source_id, target_id} - set(await self.get_entities([source_id, target_id]))
        return NotFound("entity", sorted(missing)[0] if missing else source_id)

    async def relations(self, entity_id: str, at: float | None = None) -> list[EntityRelation]:
        rows = await self.read("entity_relations", id=entity_id, at=at)
        return [relation_from(r) for r in rows]

    async def merge_entities(
        self, keep_id: str, drop_ids: Sequence[str], reason: str, by: str | None = None
    ) -> EntityMerge:
        """Record that ``drop_ids`` are the same as ``keep_id``; undo with ``unmerge``."""
        drops = list(dict.fromkeys(drop_ids))
        if not drops:
            raise InvalidInput("nothing to merge", field="dropIds")
        if keep_id in drops:
            raise InvalidInput("an entity cannot be merged into itself", field="dropIds")
        found = await self.get_entities([keep_id, *drops])
        for ident in (keep_id, *drops):
            if ident not in found:
                raise NotFound("entity", ident)
        for ident in (keep_id, *drops):
            if found[ident].merged_into:
                raise Conflict(f"entity {ident} is already merged into {found[ident].merged_into}")
        absorbed = await self.read("entity_merged_into", ids=drops)
        if absorbed:
            raise Conflict(
                f"entity {absorbed[0]['target']} has entities merged into it; merge into it",
                current_id=absorbed[0]["target"],
            )
        merge = {"id": new_id(), "reason": reason, "at": now(), "by": by}
        rows = await self.write(
            "entity_merge",
            keep_id=keep_id,
            drop_ids=drops,
            merge={k: v for k, v in merge.items() if v},
        )
        if not rows or sorted(rows[0]["merged"]) != sorted(drops):
            raise Conflict("entities changed during the merge")
        return await self.get_merge(str(merge["id"]))

    async def get_merge(self, merge_id: str) -> EntityMerge:
        rows = await self.read("entity_merge_get", id=merge_id)
        if not rows:
            raise NotFound("merge", merge_id)
        return merge_from(rows[0]["mg"])

    async def unmerge(self, merge_id: str) -> EntityMerge:
        merge = await self.get_merge(merge_id)
        if merge.undone_at is not None:
            raise Conflict(f"merge {merge_id} was already undone")
        await self.write("entity_unmerge", merge_id=merge_id, at=now())
        return await self.get_merge(merge_id)

    async def erase_entity(self, entity_id: str) -> None:
        await self.get_entity(entity_id)
        await self.write("entity_erase", id=entity_id)

    async def entity_count(self) -> int:
        rows = await self.read("entity_count")
        return int(rows[0]["total"]) if rows else 0
