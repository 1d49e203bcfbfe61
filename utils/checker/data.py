"""The batteries' input data: values chosen to expose mistakes, the sizes of a 1-D battery, and probes.

A fixed seed per case keeps reports reproducible. `float16_exact` builds the probe of the float16 traits
(utils.checker.diagnose); `padded` and `tiles` are the tiling that predictions share.
"""

from __future__ import annotations

import math

import torch

from utils.checker.model import Case


def float16_exact(case: Case, zero_mean: bool = False) -> Case:
    """A probe for the float16 traits: `case` with values whose every sum float16 holds exactly, in any
    order. Each row (the whole input, for a 1-D one) is zero but for 16 entries spread over it, of
    magnitude 0.5, 1, 1.5 or 2: partial sums of them, and of their squares, are multiples of 1/4 below
    32, which float16 holds exactly. A float16 accumulator then gives the right answer, and a mistake of
    another kind does not. Rows differ (the entries shift by one column a row, and their signs
    alternate), so a row mixed up with another shows. `zero_mean`: the entries come in pairs +v, -v, so
    a row's mean is exactly 0 and x - mean is x (for a norm, whose centring would round otherwise)."""
    x = case.inputs[0]
    rows, n = (x.shape[0], x.shape[1]) if x.dim() == 2 else (1, x.numel())
    positions = torch.linspace(0, n - 1, min(n, 16)).round().long().unique()
    k = torch.arange(len(positions), dtype=torch.float64)
    if zero_mean:
        values = (k // 2 % 4 + 1) * 0.5 * (1 - 2 * (k % 2))
        if len(values) % 2:  # an odd count (n < 16): the unpaired last entry would move the mean
            values[-1] = 0.0
    else:
        values = (k % 4 + 1) * 0.5 * torch.where(k % 3 == 2, -1.0, 1.0)
    data = torch.zeros(rows, n, dtype=torch.float64)
    for r in range(rows):
        data[r, (positions + r) % n] = values * (1 - 2 * (r % 2)) if not zero_mean else values
    probe = (data.reshape(x.shape).to(x.dtype),)
    return Case(
        f"{case.name}, values float16 sums exactly",
        probe + case.inputs[1:],
        case.out_shape,
        case.layout,
        frozenset(),
        case.out_dtype,
    )


# ----------------------------------------------------------------------------------------------------
# Input data. A fixed seed per case keeps reports reproducible; values are chosen to expose mistakes:
# all-negative data catches a max padded with 0.0, ragged sizes catch a wrong `other=`, large magnitudes
# catch fp16 accumulation.


def values(n: int, kind: str, seed: int, dtype=torch.float32) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    u = torch.rand(n, generator=g, dtype=torch.float64)
    data = {  # functions, so that only the kind asked for is computed
        "mixed": lambda: 2 * u - 1,
        "positive": lambda: u + 0.5,
        "negative": lambda: -(u + 1),
        "large": lambda: (2 * u - 1) * 1e20,
        "ones": lambda: torch.ones(n, dtype=torch.float64),
        "ascending": lambda: (2 * u - 1).sort().values,  # the maximum sits in the very last tile
        "descending": lambda: (2 * u - 1).sort(descending=True).values,  # and here the minimum
        # For the argmax: all negative, on a grid of 1/16, so the maximum -1.0 occurs many times, in many
        # tiles; and mixed values with two NaNs, a third and two thirds of the way in.
        "ties": lambda: -1 - torch.floor(16 * u) / 16,
        # The maximum 1.0 once in each stretch of 4,096, at offset 4,095 - k in the k-th: for every tile
        # of a power of two up to 4,096 the first maximum sits in the latest lane of all, so a combine
        # that breaks ties by lane, by program or by slot order picks another one.
        "ties across tiles": lambda: _ties(u, offsets=lambda k: 4095 - k),
        # The maximum 1.0 at lane 7 of every stretch of 4,096: one lane sees it in tile after tile, and
        # must keep the first.
        "ties in one lane": lambda: _ties(u, offsets=lambda k: 7 + 0 * k),
        "nan": lambda: torch.where(_nan_positions(n), math.nan, 2 * u - 1),
        # The maximum 1.0 at every index from ODD_TILE_START on, none before: its first copy sits in an odd
        # tile of every size from 256 to 8,192, a later program's than the first, so a combine that keeps
        # the lowest program's (or the first partial's) maximum on a tie returns a later index.
        "ties from an odd tile": lambda: torch.where(
            torch.arange(n) >= ODD_TILE_START, 1.0, -1 - torch.floor(16 * u) / 16
        ),
        # NaNs at 0, at 2^15 (lane 0 of a later tile of program 0 for any tile and grid whose product
        # divides 2^15) and last: the first must win, in a lane, across lanes and across programs.
        "three nans": lambda: torch.where(_three_nans(n), math.nan, 2 * u - 1),
        # Negative values with -0.0 a third of the way in and 0.0 at two thirds: -0.0 == 0.0, a tie.
        "signed zeros": lambda: _signed_zeros(-(u + 1)),
        # Mixed values with one NaN whose sign bit is set (what -nan, or 0.0 / 0.0 on x86, gives).
        "negative nan": lambda: torch.where(torch.arange(n) == n // 2, -math.nan, 2 * u - 1),
        # +inf a third of the way in, NaN at two thirds: NaN still wins, though x > inf is never True
        "inf before nan": lambda: torch.where(
            torch.arange(n) == n // 3,
            math.inf,
            torch.where(torch.arange(n) == 2 * n // 3, math.nan, 2 * u - 1),
        ),
        "zeros": lambda: torch.zeros(n, dtype=torch.float64),
        "inf": lambda: torch.where(torch.arange(n) == n // 3, math.inf, 2 * u - 1),  # its sum is inf
        "-inf": lambda: torch.where(torch.arange(n) == n // 3, -math.inf, 2 * u - 1),
        # +inf as the last element: in the last, partial tile of most tilings, beside masked lanes of -inf
        "inf last": lambda: torch.where(torch.arange(n) == n - 1, math.inf, 2 * u - 1),
        # +inf a third of the way in, -inf at two thirds: x * (x > 0) makes NaN of -inf, a ReLU 0.0
        "signed infinities": lambda: torch.where(
            torch.arange(n) == n // 3,
            math.inf,
            torch.where(torch.arange(n) == 2 * n // 3, -math.inf, 2 * u - 1),
        ),
        # 1.0 first, 1 + 2^-20 at ODD_TILE_START (another program's tile): float32 tells them apart,
        # float16 does not.
        "close maxima": lambda: _close_maxima(2 * u - 1),
        # Zeros, negative zeros and other values, for counting non-zeros: -0.0 == 0, so it is not counted.
        "sparse": lambda: torch.where(u < 0.4, 0.0, torch.where(u < 0.6, -0.0, 4 * u - 3)),
        # Zeros and -0.0 among NaNs, +-1e-30 (its square is 0 in float32, and it is 0 in float16), +-1e-10
        # (0 in float16, its square not 0 in float32) and +-1e-7 (below a threshold such as |x| > 1e-6):
        # each is non-zero, NaN too.
        "zeros, tiny and nan": lambda: _near_zero(u),
        "hot": lambda: 100 + 200 * u,  # exp(x) overflows float32 from x = 88.7
        "cold": lambda: -200 - 200 * u,  # exp(x) is 0 in float32 below x = -103.3
        "offset": lambda: 1e4 + (2 * u - 1),  # a mean far larger than the spread: sum(x^2) - n mean^2 cancels
        # For logsumexp, whose masked logits are -inf: every entry -inf (the answer is -inf), and a run of
        # -inf longer than any tile up to 16,384 before mixed values, so that some programs see only -inf.
        "all -inf": lambda: torch.full((n,), -math.inf, dtype=torch.float64),
        "all +inf": lambda: torch.full((n,), math.inf, dtype=torch.float64),
        # Near float32's largest, 3.4e38: a finite stand-in for an infinity (other=-1e30, a running max
        # started at -3.4e38) wins here, and x + |x| overflows past 1.7e38.
        "huge": lambda: (2 * u - 1) * 3e38,
        "huge negative": lambda: -(u + 1) * 1.5e38,
        "huge positive": lambda: (u + 1) * 1.5e38,
        "-inf first": lambda: torch.where(torch.arange(n) < min(n - 1, 16384), -math.inf, 2 * u - 1),
        # -inf for the first two thirds, then values near -1000, whose exp underflows even in float64: a
        # running max set to 0 while it is -inf (a guard written into the max itself) loses every later term
        "-inf, then near -1000": lambda: torch.where(torch.arange(n) < 2 * n // 3, -math.inf, -1000 - u),
        # The first 1,024 values 100 above the rest: a program whose first tile (of any size up to 1,024)
        # is the high one meets lower tiles after it, where a shift by each tile's own maximum rescales by
        # exp(100), past float32's largest value.
        "falling by 100": lambda: torch.where(torch.arange(n) < 1024, 100.0, 0.0) + (2 * u - 1),
    }[kind]()
    return data.to(dtype)


def _near_zero(u: torch.Tensor) -> torch.Tensor:
    sign = 1 - 2 * (torch.arange(u.numel()) % 2)
    picks = [(0.3, 0.0), (0.45, -0.0), (0.5, math.nan), (0.6, 1e-30), (0.7, 1e-10), (0.8, 1e-7)]
    data = 4 * u - 3
    for bound, value in reversed(picks):
        data = torch.where(u < bound, value * sign if value else value, data)
    return data


def _ties(u: torch.Tensor, offsets) -> torch.Tensor:
    """Negative values on a grid of 1/16, with the maximum 1.0 at k * 4096 + offsets(k) for each k that
    fits (and at 0 when none does)."""
    data = -1 - torch.floor(16 * u) / 16
    k = torch.arange(max(1, u.numel() // 4096))
    data[(k * 4096 + offsets(k)).clamp(max=u.numel() - 1)] = 1.0
    return data


ODD_TILE_START = 0x3F00  # 16,128: bits 8 to 13 set, so 16,128 // T is odd for each T from 256 to 8,192


def _signed_zeros(data: torch.Tensor) -> torch.Tensor:
    n = data.numel()
    data[n // 3], data[2 * n // 3] = -0.0, 0.0
    return data


def _close_maxima(data: torch.Tensor) -> torch.Tensor:
    data[0], data[min(ODD_TILE_START, data.numel() - 1)] = 1.0, 1.0 + 2.0**-20
    return data


def _three_nans(n: int) -> torch.Tensor:
    where = torch.zeros(n, dtype=torch.bool)
    where[[0, min(2**15, n - 1), n - 1]] = True
    return where


def _nan_positions(n: int) -> torch.Tensor:
    """True at n // 3 and 2n // 3 (one position when n < 3): where the "nan" values hold a NaN."""
    where = torch.zeros(n, dtype=torch.bool)
    where[[n // 3, 2 * n // 3]] = True
    return where


def vector_sizes(large: bool) -> list[tuple[int, str]]:
    """(N, value kind): N = 1, below, equal to and past the common block sizes, and a big ragged N."""
    sizes = [
        (1, "mixed"),
        (3, "negative"),
        (100, "positive"),
        (128, "mixed"),
        (1000, "negative"),
        (1024, "mixed"),
        (1025, "positive"),
        (3000, "mixed"),
        (4096, "negative"),
        (8191, "large"),
        (2**15 + 3, "mixed"),
        (2**15 + 2000, "ascending"),
        (2**15 + 1000, "descending"),
        (6000, "negative"),  # a number of tiles that is not a power of two: a stage 2's lanes are masked
        (2**16, "negative"),  # a multiple of every block size: no lane is ever masked
        # Added later, so that the cases above keep their data (a case's seed is its place in the list):
        (512, "negative"),  # one tile of 512: a host that tests n < BLOCK one way and n > BLOCK another
        (2048, "mixed"),
        (1000, "zeros"),  # partials of 0, after a call of its shape (a store skipped for 0 keeps its last)
        # past 4,096 by an odd number of 2,048s: a persistent grid's last whole round of 4 tiles of 1,024
        # and a partial last block of 2,048 end in different places (before it, every failing case agreed)
        (7000, "mixed"),
    ]
    if large:
        sizes += [(2**20, "positive"), (2**22 + 7, "mixed"), (persistent_trips_size(), "mixed")]
    return sizes


H200_SMS = 132  # the reference GPU's streaming multiprocessors: the GPU battery's size without a GPU here


def persistent_trips_size(trips: int = 3, tile: int = 4096, programs_per_sm: int = 8) -> int:
    """N for the GPU battery's largest case: `trips` trips of a persistent grid's loop on this GPU (the
    grid of notebooks 06 and 07, 8 programs per SM over tiles of 4096), plus a ragged tail of 7. With a
    fixed N, a kernel with no grid-stride loop at all passed every case on a GPU with many SMs (132 SMs
    cover 4.3 M elements in one trip). Without a GPU, the H200's SM count: the tests build the GPU
    battery on the CPU too."""
    sms = H200_SMS
    if torch.cuda.is_available():
        sms = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
    return trips * programs_per_sm * sms * tile + 7


def describe(n: int, kind: str) -> str:
    return f"N={n}, {kind}"


def vector_cases(large: bool, arity: int = 1, out_like_input: bool = False) -> list[Case]:
    cases = []
    for i, (n, kind) in enumerate(vector_sizes(large)):
        inputs = tuple(values(n, kind, seed=100 * i + j) for j in range(arity))
        cases.append(Case(describe(n, kind), inputs, (n,) if out_like_input else (1,)))
    return cases


def extra_cases(kinds: list[tuple[int, str]], seed: int, traits=frozenset(), out_shape=(1,)) -> list[Case]:
    return [
        Case(describe(n, kind), (values(n, kind, seed=seed + i),), out_shape, traits=frozenset(traits))
        for i, (n, kind) in enumerate(kinds)
    ]


def padded(x: torch.Tensor, block: int, value: float) -> torch.Tensor:
    pad = -x.numel() % block
    return torch.cat([x, torch.full((pad,), value, dtype=x.dtype)])


def tiles(x: torch.Tensor, block: int, value: float) -> torch.Tensor:
    return padded(x, block, value).view(-1, block)
