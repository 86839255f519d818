"""The two ways tools/nnue/train.py trains the network, with one interface: numpy with scipy's
sparse matrices (gradients written out), and PyTorch on the CPU (autograd). Both compute the same
network, loss and AdamW steps; tools/nnue/trainer_speed.py times them, tests/test_nnue_data.py
checks that their gradients agree.

A backend takes batches as numpy arrays: the side to move's input indices and the other side's
(768 x king buckets, the number of inputs, fills empty slots; tools/nnue/data.py's
king_bucket_features makes them), and the target (a probability). With output buckets, each
position's bucket follows from its number of pieces, which is its number of input indices
(network_file.output_bucket) in the first 32 columns.

With a factoriser (king buckets only), the network trained has one more set of 768 inputs that
every king bucket shares: each position's 32 indices are followed by the same pieces' indices in
that set (tools/nnue/data.py's factoriser_features), so what holds wherever the king stands is
learned from all positions, and each bucket's own set learns only how its king square differs.
The network written adds the shared set to each bucket's (fold_factoriser): the engine computes
the same sums with one set per bucket."""
from __future__ import annotations

import numpy as np

from ponderosa.engine.nnue import reference
from ponderosa.engine.nnue.network_file import INPUTS, NO_KING_BUCKETS, PIECES_MAX, KingLayout

SLOTS = 32   # a position's input indices (padded); a factoriser's follow them
BETAS = (0.9, 0.999)
EPSILON = 1e-8


def output_buckets(indices: np.ndarray, buckets: int, pad: int = INPUTS) -> np.ndarray:
    """Each row's output bucket (network_file.output_bucket of its number of pieces; pad fills
    empty slots)."""
    pieces = (indices[:, :SLOTS] != pad).sum(axis=1)
    return np.clip((pieces - 1) * buckets // PIECES_MAX, 0, buckets - 1)


class NumpyBackend:
    """The network with hand-written gradients: inputs as sparse matrices (scipy), AdamW by hand."""

    def __init__(self, hidden: int, lr: float, weight_decay: float, seed: int, buckets: int = 1,
                 king_layout: KingLayout = NO_KING_BUCKETS, factorised: bool = False) -> None:
        rng = np.random.default_rng(seed)
        self.hidden, self.buckets, self.king_layout, self.factorised = hidden, buckets, king_layout, factorised
        self.inputs = INPUTS * (king_layout.count + factorised)   # and the padding index
        self.lr, self.weight_decay = lr, weight_decay
        self.params = {"w1": rng.normal(0, 0.05, (self.inputs, hidden)).astype(np.float32),
                       "b1": np.full(hidden, 0.1, np.float32),
                       "w2": rng.normal(0, 0.05, (buckets, 2 * hidden)).astype(np.float32),
                       "b2": np.zeros(buckets, np.float32)}
        self.moments = {name: (np.zeros_like(value), np.zeros_like(value)) for name, value in self.params.items()}
        self.steps = 0

    def _inputs(self, indices: np.ndarray):   # type: ignore[no-untyped-def]
        from scipy import sparse
        size, slots = indices.shape
        rows = np.repeat(np.arange(size), slots)
        keep = indices.ravel() != self.inputs
        return sparse.csr_matrix((np.ones(int(keep.sum()), np.float32), (rows[keep], indices.ravel()[keep])),
                                 shape=(size, self.inputs))

    def _forward(self, us: np.ndarray, them: np.ndarray) -> tuple:
        p, h = self.params, self.hidden
        x_us, x_them = self._inputs(us), self._inputs(them)
        a_us, a_them = x_us @ p["w1"] + p["b1"], x_them @ p["w1"] + p["b1"]
        c_us, c_them = np.clip(a_us, 0, 1), np.clip(a_them, 0, 1)
        bucket = output_buckets(us, self.buckets, self.inputs)
        weights = p["w2"][bucket]   # each row's output weights
        out = ((c_us ** 2) * weights[:, :h]).sum(axis=1) + ((c_them ** 2) * weights[:, h:]).sum(axis=1) \
            + p["b2"][bucket]
        return x_us, x_them, a_us, a_them, c_us, c_them, bucket, weights, 1 / (1 + np.exp(-out))

    def loss_sum(self, us: np.ndarray, them: np.ndarray, want: np.ndarray) -> float:
        predicted = self._forward(us, them)[-1]
        return float(((predicted - want) ** 2).sum())

    def gradients(self, us: np.ndarray, them: np.ndarray, want: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
        """The mean loss and d(mean loss)/d(parameter) for every parameter."""
        h, size = self.hidden, len(want)
        x_us, x_them, a_us, a_them, c_us, c_them, bucket, weights, predicted = self._forward(us, them)
        g_out = 2 * (predicted - want) * predicted * (1 - predicted) / size
        activated = np.concatenate([c_us ** 2, c_them ** 2], axis=1)
        grads = {"w2": np.zeros_like(self.params["w2"]),
                 "b2": np.bincount(bucket, weights=g_out, minlength=self.buckets).astype(np.float32)}
        for b in np.unique(bucket):
            rows = bucket == b
            grads["w2"][b] = activated[rows].T @ g_out[rows]
        g_us = g_out[:, None] * weights[:, :h] * 2 * c_us * ((a_us > 0) & (a_us < 1))
        g_them = g_out[:, None] * weights[:, h:] * 2 * c_them * ((a_them > 0) & (a_them < 1))
        grads["w1"] = np.asarray(x_us.T @ g_us + x_them.T @ g_them)
        grads["b1"] = g_us.sum(axis=0) + g_them.sum(axis=0)
        return float(((predicted - want) ** 2).mean()), grads

    def train_step(self, us: np.ndarray, them: np.ndarray, want: np.ndarray) -> float:
        loss, grads = self.gradients(us, them, want)
        self.steps += 1
        first_fix, second_fix = 1 - BETAS[0] ** self.steps, 1 - BETAS[1] ** self.steps
        for name, grad in grads.items():
            value = self.params[name]
            first, second = self.moments[name]
            first *= BETAS[0]
            first += (1 - BETAS[0]) * grad
            second *= BETAS[1]
            second += (1 - BETAS[1]) * grad * grad
            value *= 1 - self.lr * self.weight_decay
            value -= self.lr * (first / first_fix) / (np.sqrt(second / second_fix) + EPSILON)
        self._clip()
        return loss

    def _clip(self) -> None:
        for name in ("w1", "b1"):
            np.clip(self.params[name], -reference.FT_WEIGHT_LIMIT, reference.FT_WEIGHT_LIMIT, out=self.params[name])
        np.clip(self.params["w2"], -reference.OUT_WEIGHT_LIMIT, reference.OUT_WEIGHT_LIMIT, out=self.params["w2"])

    def set_learning_rate(self, lr: float) -> None:
        self.lr = lr

    def float_network(self) -> reference.FloatNetwork:
        p = self.params
        w1 = fold_factoriser(p["w1"], self.king_layout.count) if self.factorised else p["w1"].copy()
        return reference.FloatNetwork(w1, p["b1"].copy(), p["w2"].copy(), p["b2"].copy(), self.king_layout)


class TorchBackend:
    """The same network in PyTorch: an EmbeddingBag for the sparse first layer, AdamW."""

    def __init__(self, hidden: int, lr: float, weight_decay: float, seed: int, buckets: int = 1,
                 king_layout: KingLayout = NO_KING_BUCKETS, factorised: bool = False) -> None:
        import torch
        self.torch = torch
        self.buckets, self.king_layout, self.factorised = buckets, king_layout, factorised
        pad = self.pad = INPUTS * (king_layout.count + factorised)   # the padding index, after the inputs
        torch.manual_seed(seed)

        class Network(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                # One extra row for the padding index, kept at zero.
                self.ft = torch.nn.EmbeddingBag(pad + 1, hidden, mode="sum", padding_idx=pad)
                self.ft_bias = torch.nn.Parameter(torch.full((hidden,), 0.1))
                self.out = torch.nn.Linear(2 * hidden, buckets)   # one output per bucket
                with torch.no_grad():
                    self.ft.weight.normal_(0.0, 0.05)
                    self.ft.weight[pad].zero_()
                    self.out.weight.normal_(0.0, 0.05)
                    self.out.bias.zero_()

            def forward(self, us: torch.Tensor, them: torch.Tensor, bucket: torch.Tensor) -> torch.Tensor:
                a = torch.clamp(self.ft(us) + self.ft_bias, 0.0, 1.0) ** 2
                b = torch.clamp(self.ft(them) + self.ft_bias, 0.0, 1.0) ** 2
                outputs = self.out(torch.cat([a, b], dim=1))
                return outputs.gather(1, bucket.unsqueeze(1)).squeeze(1)   # in units of 400 centipawns

        self.model = Network()
        self.optimiser = torch.optim.AdamW(self.model.parameters(), lr=lr, betas=BETAS, eps=EPSILON,
                                           weight_decay=weight_decay)

    def _tensors(self, us: np.ndarray, them: np.ndarray, want: np.ndarray) -> tuple:
        torch = self.torch
        return (torch.from_numpy(us.astype(np.int64)), torch.from_numpy(them.astype(np.int64)),
                torch.from_numpy(output_buckets(us, self.buckets, self.pad).astype(np.int64)),
                torch.from_numpy(want.astype(np.float32)))

    def loss_sum(self, us: np.ndarray, them: np.ndarray, want: np.ndarray) -> float:
        us_t, them_t, bucket_t, want_t = self._tensors(us, them, want)
        with self.torch.no_grad():
            return float(((self.torch.sigmoid(self.model(us_t, them_t, bucket_t)) - want_t) ** 2).sum())

    def train_step(self, us: np.ndarray, them: np.ndarray, want: np.ndarray) -> float:
        us_t, them_t, bucket_t, want_t = self._tensors(us, them, want)
        loss = ((self.torch.sigmoid(self.model(us_t, them_t, bucket_t)) - want_t) ** 2).mean()
        self.optimiser.zero_grad()
        loss.backward()
        self.optimiser.step()
        with self.torch.no_grad():
            model = self.model
            model.ft.weight.clamp_(-reference.FT_WEIGHT_LIMIT, reference.FT_WEIGHT_LIMIT)
            model.ft_bias.clamp_(-reference.FT_WEIGHT_LIMIT, reference.FT_WEIGHT_LIMIT)
            model.out.weight.clamp_(-reference.OUT_WEIGHT_LIMIT, reference.OUT_WEIGHT_LIMIT)
        return loss.item()

    def set_learning_rate(self, lr: float) -> None:
        for group in self.optimiser.param_groups:
            group["lr"] = lr

    def _first_layer(self) -> np.ndarray:
        weights = self.model.ft.weight[:self.pad].detach().numpy().astype(np.float32).copy()
        return fold_factoriser(weights, self.king_layout.count) if self.factorised else weights

    def float_network(self) -> reference.FloatNetwork:
        model = self.model
        return reference.FloatNetwork(
            ft_weights=self._first_layer(),
            ft_bias=model.ft_bias.detach().numpy().astype(np.float32).copy(),
            out_weights=model.out.weight.detach().numpy().astype(np.float32).copy(),
            out_bias=model.out.bias.detach().numpy().astype(np.float32).copy(),
            king_layout=self.king_layout)


def fold_factoriser(weights: np.ndarray, king_buckets: int) -> np.ndarray:
    """The first layer of the network written: each king bucket's 768 rows plus the shared set's
    (the rows after them). Quantisation clips the sums to what the integers hold."""
    own = weights[:INPUTS * king_buckets].reshape(king_buckets, INPUTS, -1)
    return (own + weights[INPUTS * king_buckets:INPUTS * (king_buckets + 1)][None]).reshape(INPUTS * king_buckets, -1)


def available_backends() -> list[str]:
    names = []
    try:
        import scipy  # noqa: F401
        names.append("numpy")
    except ImportError:
        pass
    try:
        import torch  # noqa: F401
        names.append("torch")
    except ImportError:
        pass
    return names


def make_backend(name: str, hidden: int, lr: float, weight_decay: float, seed: int,   # type: ignore[no-untyped-def]
                 buckets: int = 1, king_layout: KingLayout = NO_KING_BUCKETS, factorised: bool = False):
    return (TorchBackend if name == "torch" else NumpyBackend)(hidden, lr, weight_decay, seed, buckets, king_layout,
                                                               factorised)
