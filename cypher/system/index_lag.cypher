// Memories of every tenant not yet in the vector index (an operations metric).
// params: none
// returns: lag
MATCH (m:Memory {indexed: false})
RETURN count(m) AS lag
