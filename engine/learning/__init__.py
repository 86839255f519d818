"""The three kinds of learning: their rules (rules), where learned data is kept (store, and
store_pg for PostgreSQL) and the engine's learner that applies them to its games (learner)."""
