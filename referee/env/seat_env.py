"""One learning seat of any game as a Gymnasium environment, the other seats played by bots.

The plumbing the games' seat environments share (:mod:`waraq.referee.env.hokm_gymnasium`,
:mod:`waraq.referee.env.hand_gymnasium` say what each offers): the two ways to play the
other seats, the engine's own with built-in players in-process or the referee's
(:mod:`waraq.referee.env.refereed`), boards, the forfeit of an illegal index, the reward
and the observation once the match is over. A game gives its parts
(:class:`~waraq.referee.env.parts.GameParts`).

A decision may take several steps (a Hand turn, built move by move): the game keeps
what is built so far as its *progress*, which the observation and the mask see, and
hands the finished action over when the last step makes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import Env, spaces

from waraq.referee.common import built_in
from waraq.referee.env.boards import board_dealer, board_of, side_reward
from waraq.referee.env.parts import GameParts
from waraq.referee.match.secret_deals import run_match_id

if TYPE_CHECKING:
    from waraq.referee.match.play import TimeControl  # the referee's way only: grpc is imported then

ILLEGAL = ("raise", "forfeit")  # what an index that is not legal does: a ValueError, or the match lost


class SeatEnv(Env[np.ndarray, np.int64]):
    """The environment of the module docstring, for the game its subclass names in :attr:`game`."""

    game: GameParts
    metadata: dict[str, Any] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        rules: Any = "classic",
        seat: int = 0,
        bots: str | Sequence[str] = "random",
        render_mode: str | None = None,
        *,
        record_dir: str | Path | None = None,
        time_control: TimeControl | None = None,
        illegal: str = "raise",
    ) -> None:
        game = self.game
        if illegal not in ILLEGAL:
            raise ValueError(f"illegal={illegal!r}: expected one of {', '.join(map(repr, ILLEGAL))}")
        self.illegal = illegal
        self.rules = game.load_rules(rules)
        n = self.rules.players
        if not 0 <= seat < n:
            raise ValueError(f"seat {seat} is not a seat of {n}-player {game.name.title()}: expected 0-{n - 1}")
        names = [bots] * (n - 1) if isinstance(bots, str) else list(bots)
        if len(names) != n - 1:
            raise ValueError(f"{n - 1} bots needed for the other seats, {len(names)} given: {names!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: expected None or 'ansi'")
        self.seat = seat
        others = [s for s in range(n) if s != seat]
        self.bots = dict(zip(others, names, strict=True))
        self.render_mode = render_mode
        self.observation_space = spaces.Box(game.low, 1.0, (game.observation_size(n),), np.float32)
        self.action_space = spaces.Discrete(game.actions)
        self.match: Any = None  # the engine's match in progress (the engine's way), after reset()
        self.view: Any = None  # the agent's view at its decision now
        self.progress: Any = None  # what the agent's steps built of its decision so far
        self.winners: tuple[int, ...] | None = None  # once the match is over
        self._players: dict[int, Any] = {}
        self._bot_classes: dict[int, Any] = {}
        self.refereed = None
        if record_dir is None and all(name in built_in.names() for name in names):
            self._bot_classes = {s: built_in.get(name).player_class(game.name) for s, name in self.bots.items()}
        else:
            from waraq.referee.env.refereed import RefereedMatch  # grpc and the launcher: only when asked for

            record = None if record_dir is None else Path(record_dir)
            self.refereed = RefereedMatch(self.rules, seat, names, time_control=time_control, record_dir=record)

    @property
    def record(self) -> Path | None:
        """The record of the last match played the referee's way (None the engine's way)."""
        return None if self.refereed is None else self.refereed.record

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        board = board_of(options)
        if board is not None:
            match_seed, dealer = board, board_dealer(self.rules, board)
        else:
            match_seed = seed if seed is not None else int(self.np_random.integers(2**63 - 1))
            dealer = None
        self.winners = None
        if self.refereed is not None:
            self._arrive(self.refereed.start(match_seed, dealer))
        else:
            self.match = self.game.new_match(self.rules, match_seed, dealer)
            mid = run_match_id(match_seed)
            self._players = {s: cls(f"{mid}/{s}") for s, cls in self._bot_classes.items()}
            self._play_others()
        return self._observation()

    def step(self, action: np.int64 | int) -> tuple[np.ndarray, float, bool, bool, dict]:
        assert self.view is not None and self.winners is None, "reset() first"
        try:
            decided = self.game.decide(action, self.view, self.progress)
        except ValueError as refused:
            if self.illegal == "raise":
                raise
            self._forfeit(str(refused))
        else:
            if decided is not None:
                self._answer(decided)
        observation, info = self._observation()
        reward = float(side_reward(self.winners, self.seat)) if self.winners is not None else 0.0
        return observation, reward, self.winners is not None, False, info

    def close(self) -> None:
        if self.refereed is not None:
            self.refereed.close()

    def render(self) -> str | None:
        if self.render_mode is None or self.view is None:
            return None
        return self.game.describe(self.view)

    def _answer(self, action: Any) -> None:
        """The agent's decision, made: to the referee, or to the engine and then the bots."""
        if self.refereed is not None:
            self._arrive(self.refereed.answer(action))
        else:
            self.match.apply(action)
            self._play_others()

    def _forfeit(self, detail: str) -> None:
        """``illegal="forfeit"``: the agent's side loses the match, as the referee's ILLEGAL fault forfeits it."""
        if self.refereed is not None:
            self._arrive(self.refereed.illegal(detail))
            return
        state = self.match
        mine = state.team_of(self.seat)
        self.winners = tuple(s for s in range(self.rules.players) if state.team_of(s) != mine)

    def _play_others(self) -> None:
        state, players = self.match, self._players
        while state.result is None and state.to_act != self.seat:
            seat = state.to_act
            player = players[seat]
            # A player that picks by index (the random bot) is asked as sample_bots/server.py asks it,
            # without a view: a view costs as much as the engine's decision. Same choice either way.
            pick = getattr(player, "pick", None)
            if pick is not None and (legal := state.legal_actions()):
                state.apply(legal[pick(len(legal))])
            else:
                state.apply(player(state.view(seat)))
        self._asked(state.view(self.seat))
        if state.result is not None:
            self.winners = tuple(state.result.winners)

    def _arrive(self, view: Any) -> None:
        """The refereed match's answer: the agent's next view, or None when it is over."""
        assert self.refereed is not None
        if view is not None:
            self._asked(view)
            return
        outcome = self.refereed.outcome
        assert outcome is not None
        self.winners = tuple(outcome.winners)

    def _asked(self, view: Any) -> None:
        self.view = view
        self.progress = self.game.progress(view)

    def _observation(self) -> tuple[np.ndarray, dict]:
        game = self.game
        if self.winners is not None:
            # Over: nothing to observe or choose, the reward says how it ended. The same both ways (the
            # referee's way never shows the agent the final table, and a forfeit may come before any view).
            nothing = np.zeros(game.observation_size(self.rules.players), np.float32)
            return nothing, {"action_mask": np.zeros(game.actions, np.int8)}
        return game.encode(self.view, self.progress), {"action_mask": game.legal_mask(self.view, self.progress)}
