// Sessions holding erased ids: erased turns leave the working-memory window, a tracker state
// naming an erased entity is reset (the next turn starts it afresh), the erased user's id goes.
// params: $tenant, $ids (memories), $entity_ids, $user_id (null unless erasing a user)
// returns: sessions (how many were changed)
MATCH (s:Session {tenant_id: $tenant})
WITH s, any(e IN $entity_ids WHERE s.entity_tracker CONTAINS e) AS tracked
WHERE tracked OR any(x IN coalesce(s.window, []) WHERE x IN $ids)
   OR ($user_id IS NOT NULL AND s.user_id = $user_id)
SET s.window = CASE WHEN s.window IS NULL THEN null
                    ELSE [x IN s.window WHERE NOT x IN $ids] END,
    s.entity_tracker = CASE WHEN tracked THEN null ELSE s.entity_tracker END,
    s.entity_tracker_turn = CASE WHEN tracked THEN null ELSE s.entity_tracker_turn END,
    s.user_id = CASE WHEN $user_id IS NOT NULL AND s.user_id = $user_id THEN null
                     ELSE s.user_id END
RETURN count(s) AS sessions
