// Sessions holding erased ids: erased turns leave the working-memory window, a tracker state
// naming an erased entity is reset (the next turn starts it afresh); the sessions of an
// erased user are deleted (their id, window and tracker state were that user's alone).
// params: $tenant, $ids (memories), $entity_ids, $user_id (null unless erasing a user)
// returns: sessions (how many were changed or deleted)
MATCH (s:Session {tenant_id: $tenant})
WITH s, any(e IN $entity_ids WHERE s.entity_tracker CONTAINS e) AS tracked,
     ($user_id IS NOT NULL AND s.user_id = $user_id) AS theirs
WHERE tracked OR theirs OR any(x IN coalesce(s.window, []) WHERE x IN $ids)
SET s.window = CASE WHEN s.window IS NULL THEN null
                    ELSE [x IN s.window WHERE NOT x IN $ids] END,
    s.entity_tracker = CASE WHEN tracked THEN null ELSE s.entity_tracker END,
    s.entity_tracker_turn = CASE WHEN tracked THEN null ELSE s.entity_tracker_turn END
WITH s, theirs
FOREACH (_ IN CASE WHEN theirs THEN [1] ELSE [] END | DETACH DELETE s)
RETURN count(*) AS sessions
