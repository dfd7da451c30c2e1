"""The TrueSkill ladder: ratings, matchmaking, scheduling, storage (to come)."""
