"""Train a small Hokm policy on this machine's CPU, serve it, rate it: the whole path of docs/research.md.

    python examples/imitation/run.py [--games 300] [--epochs 6] [--boards 100] [--dir imitation-run]

1. **Games.** ``waraq match`` plays 4-player classic Hokm between four ``heuristic``
   bots over gRPC and records every match.
2. **Data.** ``waraq export --dataset`` turns the records into arrays: each seat's
   encoded view, the legal mask and the action the heuristic bot took.
3. **Training.** A network of one hidden layer (policy.py's ``scores``), NumPy alone,
   learns to imitate: softmax over the legal actions only, cross-entropy on the
   action taken, Adam. A tenth of the records is held out to measure how often it
   picks the heuristic bot's action on decisions it never saw.
4. **Serving.** The weights go in ``--dir``; ``serve.py --weights`` serves policy.py's
   ``act`` with ``waraq bot serve --policy``, so the trained agent is a bot like any other.
5. **Rating.** ``waraq versus`` plays it against ``random`` and against ``greedy``
   over paired boards (each deal in both seatings); then a ladder of it, ``random``,
   ``greedy`` and ``heuristic`` plays ``--ladder-matches`` matches and shows its table.

Everything goes in ``--dir``; the printed results are the example's result, whatever
they are (docs/research.md reports one run). Needs ``pip install -e '.[env]'``.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from policy import scores  # noqa: E402 (this folder is on the path now)

WARAQ = [sys.executable, "-m", "waraq.referee.cli.main"]


def waraq(*args: str) -> str:
    """Run a waraq command, echo it, and return what it printed."""
    print("$ waraq " + " ".join(shlex.quote(a) for a in args), flush=True)
    done = subprocess.run([*WARAQ, *args], capture_output=True, text=True)
    if done.returncode not in (0, 1, 2) or (done.returncode and "versus" not in args):
        sys.exit(f"waraq {args[0]} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def load(dataset: Path, held_out: float) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The decisions with a choice to make, split by record into training and held-out ones."""
    with np.load(dataset) as data:
        rows = {name: data[name] for name in ("obs", "mask", "action", "record")}
    choice = rows["mask"].sum(axis=1) > 1  # a decision with one legal action teaches nothing
    rows = {name: values[choice] for name, values in rows.items()}
    records = int(rows["record"].max()) + 1
    test = rows["record"] >= records * (1 - held_out)
    return ({n: v[~test] for n, v in rows.items()}, {n: v[test] for n, v in rows.items()})


def masked_log_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    logits = np.where(mask > 0, logits, -1e9)
    logits = logits - logits.max(axis=1, keepdims=True)
    return logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))


def train(rows: dict[str, np.ndarray], epochs: int, hidden: int, seed: int) -> dict[str, np.ndarray]:
    """Imitation by cross-entropy over the legal actions; Adam, minibatches of 512."""
    rng = np.random.default_rng(seed)
    inputs, actions = rows["obs"].shape[1], rows["mask"].shape[1]
    net = {
        "w1": (rng.standard_normal((inputs, hidden)) * np.sqrt(2 / inputs)).astype(np.float32),
        "b1": np.zeros(hidden, np.float32),
        "w2": (rng.standard_normal((hidden, actions)) * np.sqrt(1 / hidden)).astype(np.float32),
        "b2": np.zeros(actions, np.float32),
    }
    moments = {n: (np.zeros_like(w), np.zeros_like(w)) for n, w in net.items()}
    step, rate, beta1, beta2 = 0, 1e-3, 0.9, 0.999
    count = len(rows["action"])
    for epoch in range(epochs):
        order = rng.permutation(count)
        total = 0.0
        for start in range(0, count, 512):
            batch = order[start : start + 512]
            x, mask, taken = rows["obs"][batch], rows["mask"][batch], rows["action"][batch]
            hidden_in = x @ net["w1"] + net["b1"]
            hidden_out = np.maximum(hidden_in, 0.0)
            log_p = masked_log_softmax(hidden_out @ net["w2"] + net["b2"], mask)
            picked = np.arange(len(batch))
            total -= float(log_p[picked, taken].sum())
            d_logits = np.exp(log_p)
            d_logits[picked, taken] -= 1.0
            d_logits /= len(batch)
            d_hidden = (d_logits @ net["w2"].T) * (hidden_in > 0)
            grads = {
                "w2": hidden_out.T @ d_logits,
                "b2": d_logits.sum(axis=0),
                "w1": x.T @ d_hidden,
                "b1": d_hidden.sum(axis=0),
            }
            step += 1
            for name, grad in grads.items():
                m, v = moments[name]
                m *= beta1
                m += (1 - beta1) * grad
                v *= beta2
                v += (1 - beta2) * grad * grad
                m_hat = m / (1 - beta1**step)
                v_hat = v / (1 - beta2**step)
                net[name] -= (rate * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(np.float32)
        print(f"  epoch {epoch + 1}: mean cross-entropy {total / count:.3f}", flush=True)
    return net


def agreement(net: dict[str, np.ndarray], rows: dict[str, np.ndarray]) -> float:
    """How often the network's best legal action is the one the teacher took."""
    logits = masked_log_softmax(scores(net, rows["obs"]), rows["mask"])
    return float((logits.argmax(axis=1) == rows["action"]).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", type=Path, default=Path("imitation-run"), help="where everything goes")
    parser.add_argument("--games", type=int, default=300, help="heuristic matches to learn from")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--boards", type=int, default=100, help="at most this many boards per versus")
    parser.add_argument("--ladder-matches", type=int, default=120)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    began = time.monotonic()

    print("1. games between four heuristic bots", flush=True)
    records = args.dir / "records"
    if not records.exists():
        games = ["--games", str(args.games), "--seed", str(args.seed), "--concurrency", "4"]
        waraq("match", "--bots", "heuristic", *games, "--record", str(records), "--json")
    print("2. the dataset", flush=True)
    dataset = args.dir / "heuristic.npz"
    waraq("export", "--dataset", str(dataset), str(records), "--overwrite")
    print("3. training", flush=True)
    training, held_out = load(dataset, held_out=0.1)
    print(f"  {len(training['action']):,} decisions to learn from, {len(held_out['action']):,} held out")
    net = train(training, args.epochs, args.hidden, args.seed)
    print(f"  held out: picks the heuristic bot's action {agreement(net, held_out):.1%} of the time")
    weights = (args.dir / "weights.npz").resolve()
    np.savez(weights, **net)
    print("4. serving and 5. rating", flush=True)
    serve = " ".join(shlex.quote(str(part)) for part in (sys.executable, HERE / "serve.py", "--weights", weights))
    command = f"{serve} --unix {{socket}}"
    bot = f"imitation={command}"
    for rival in ("random", "greedy"):
        out = waraq("versus", bot, rival, "--boards", str(args.boards), "--dir", str(args.dir / f"versus-{rival}"))
        print(out.strip().split("\n\n")[-1] if out.strip() else "(versus printed nothing)")
    ladder = args.dir / "ladder"
    if not (ladder / "ladder.toml").exists():
        waraq("ladder", "init", str(ladder), "--seed", str(args.seed))
        for name, spec in (("imitation", command), *((house, house) for house in ("random", "greedy", "heuristic"))):
            waraq("ladder", "add", "--dir", str(ladder), name, spec)
    waraq("ladder", "run", "--dir", str(ladder), "--matches", str(args.ladder_matches), "--quiet")
    print(waraq("ladder", "show", "--dir", str(ladder)))
    print(f"all of it in {(time.monotonic() - began) / 60:.1f} minutes")


if __name__ == "__main__":
    main()
