"""A cached launcher: `Launcher(kernel)[grid](*args, **constexprs)` does what `kernel[grid](...)` does, with
Triton's Python dispatch done once per specialisation instead of on every call.

`kernel[grid](...)` binds the arguments, works out how each one specialises the kernel, builds a cache key,
looks the compiled kernel up, then calls its C launcher. The C launcher costs about what torch's own
dispatch does; the Python around it is most of an eager launch's host time (notebook 07 measures the
tiers). Here the first call of each specialisation goes through the JIT (which compiles, or finds its
cached kernel, and launches), and keeps the `CompiledKernel` it returns; later calls with the same key
call that kernel's `run` directly, on Triton's current stream.

The key holds everything the JIT specialises on, so a cached kernel is never run on arguments it was not
compiled for: each tensor's dtype and whether its address is a multiple of 16 bytes (a kernel compiled
for aligned pointers issues 16-byte loads, which fault on `x[1:]`); each integer's `== 1`, `% 16 == 0`
and whether it fits in 32 bits; the value of every constexpr and launch option; the current device. It is
stricter than the JIT's where that is simpler (a `do_not_specialize` integer is still keyed), which costs
at most one more trip through the JIT.

`CompiledKernel.run`'s argument list is internal to Triton (grid, stream, function, packed metadata,
launch metadata, two launch hooks, then every argument of the kernel, constexprs included). It was read
in the source of triton 3.3.1, 3.4.0, 3.5.1, 3.7.1, 3.8.0 and 3.9.0, and 3.6.0 runs it in the GPU tests
(RUN_SIGNATURE_READ); on any other version, in the interpreter, or without
a GPU, the launcher calls `kernel[grid](...)` every time and says so once. Triton's launch hooks (its
profiler's) are not called on the fast path, and neither is the JIT's check that the globals a kernel
reads have not changed.

Why not an existing library: torch.compile's static launcher (`torch._inductor`) launches kernels that
Inductor compiled itself, and `torch.library.triton_op` routes a call through torch's dispatcher, which
costs more than it saves for one eager op (notebook 07 measures both).
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable, Sequence
from typing import Any

import torch
import triton

# (major, minor) versions whose JITFunction.run calls `kernel.run(gx, gy, gz, stream, function,
# packed_metadata, launch_metadata, enter_hook, exit_hook, *every bound argument)` (see the docstring).
RUN_SIGNATURE_READ = frozenset({(3, 3), (3, 4), (3, 5), (3, 6), (3, 7), (3, 8), (3, 9)})

_said: set[str] = set()


def _say_once(reason: str) -> None:
    if reason not in _said:
        _said.add(reason)
        print(f"utils.launch: {reason}; launching through kernel[grid](...) instead (correct, slower).")


def fast_path_unavailable() -> str | None:
    """Why the launcher cannot call CompiledKernel.run here (None: it can)."""
    if os.environ.get("TRITON_INTERPRET") == "1":
        return "the interpreter runs kernels in Python, with no compiled kernel to call"
    version = tuple(int(part) for part in triton.__version__.split(".")[:2])
    if version not in RUN_SIGNATURE_READ:
        return f"triton {triton.__version__}'s launcher arguments were not read for this course"
    if not torch.cuda.is_available():
        return "no GPU"
    return None


def _other_key(value: Any) -> Any:
    """The key of an argument that is neither a tensor (nor a tensor-like) nor an int, nor a constexpr."""
    if isinstance(value, (bool, float)) or value is None:
        return type(value)  # the JIT gives these a type and no specialisation
    return ("value", value)  # anything else the JIT turns into a constant, and int subclasses: by value


@functools.cache
def _key_function(constexpr: tuple[bool, ...]) -> Callable[[int, tuple, dict], tuple]:
    """A function (device, args, kwargs) -> the key, for len(constexpr) positional arguments. A tensor
    (or anything with a data_ptr, as the JIT reads pointers) is keyed on its dtype and a 16-byte-aligned
    address, an int on `== 1`, `% 16 == 0` and its width,
    a constexpr on its value. Generated as source, as the JIT's own binder is: a Python call per argument
    costs about as much as the launch saves."""
    parts = []
    for i, is_constexpr in enumerate(constexpr):
        a = f"a{i}"
        if is_constexpr:
            parts.append(f"('constexpr', {a})")
        else:
            tensor = f"({a}.dtype, {a}.data_ptr() % 16 == 0)"
            integer = (
                f"({a} == 1, {a} % 16 == 0, -2147483648 <= {a} <= 2147483647, {a} >= 9223372036854775808)"
            )
            pointer = f"type({a}) is Tensor or hasattr({a}, 'data_ptr')"  # an exact Tensor decides at once
            parts.append(f"{integer} if type({a}) is int else {tensor} if {pointer} else other({a})")
    names = "".join(f"a{i}, " for i in range(len(constexpr)))
    body = ", ".join(parts)
    source = (
        f"def key_of(device, args, kwargs):\n    ({names}) = args\n"
        f"    return (device, tuple(kwargs.items()), {body})\n"
    )
    scope: dict[str, Any] = {"Tensor": torch.Tensor, "other": _other_key}
    exec(source, scope)
    return scope["key_of"]


def argument_key(value: Any, constexpr: bool) -> Any:
    """The part of the cache key for one argument (the launcher's own key function, for one argument)."""
    return _key_function((constexpr,))(0, (value,), {})[2]


class Launcher:
    """`Launcher(kernel)[grid](*args, **kwargs)` for a @triton.jit kernel (not an autotuned or heuristics
    wrapper): see the module's docstring."""

    def __init__(self, kernel):
        self.kernel = kernel
        params = inspect.signature(kernel.fn).parameters.values()  # the Python function under the kernel
        self.names = [p.name for p in params]
        self.constexpr = tuple(
            "constexpr" in str(p.annotation) for p in params
        )  # as Triton reads annotations
        self.defaults = [p.default for p in params]
        # key -> (CompiledKernel, where the arguments after the positional ones come from)
        self.compiled: dict[tuple, tuple[Any, tuple | None]] = {}
        # positional count -> _key_function's result: a dict lookup by count costs 0.05 us, the cached
        # generator's lookup by the constexpr flags about 0.35 (on the hot path)
        self._key_functions: dict[int, Callable[[int, tuple, dict], tuple]] = {}
        self.unavailable = fast_path_unavailable()
        if not self.unavailable:  # Triton's getters: about 0.1 us each (torch's current stream, about 7)
            driver = triton.runtime.driver.active
            self._device, self._stream = driver.get_current_device, driver.get_current_stream

    def __getitem__(self, grid: Sequence[int] | Callable) -> Callable[..., Any]:
        return functools.partial(self.launch, grid)

    def key(self, device: int, args: tuple, kwargs: dict) -> tuple:
        """The cache key: argument_key of each positional argument, the kwargs and the device."""
        function = self._key_functions.get(len(args))
        if function is None:
            function = self._key_functions[len(args)] = _key_function(self.constexpr[: len(args)])
        return function(device, args, kwargs)

    def launch(self, grid, *args, **kwargs):
        if self.unavailable:
            _say_once(self.unavailable)
            return self.kernel[grid](*args, **kwargs)
        device = self._device()
        key = self.key(device, args, kwargs)
        entry = self.compiled.get(key)
        if entry is None:  # the JIT compiles (or finds) this specialisation and launches it
            compiled = self.kernel[grid](*args, **kwargs)
            self.compiled[key] = (compiled, self._rest(len(args), kwargs))
            return compiled
        compiled, rest = entry
        if rest is None:  # the keywords are the remaining parameters, in order
            every = args + tuple(kwargs.values())
        else:
            every = args + tuple(kwargs[name] if isinstance(name, str) else name[0] for name in rest)
        if callable(grid):
            grid = grid(dict(zip(self.names, every)))
        size = len(grid)
        gx, gy, gz = grid[0], grid[1] if size > 1 else 1, grid[2] if size > 2 else 1
        compiled.run(
            gx,
            gy,
            gz,
            self._stream(device),
            compiled.function,
            compiled.packed_metadata,
            None,
            None,
            None,
            *every,
        )
        return compiled

    def _rest(self, given: int, kwargs: dict) -> tuple | None:
        """After the positional arguments, each parameter's source: its keyword (a str) or, where it was
        not passed, its default (in a 1-tuple); None where the keywords are exactly those, in order."""
        names = self.names[given:]
        if list(kwargs) == names:
            return None
        return tuple(
            name if name in kwargs else (default,) for name, default in zip(names, self.defaults[given:])
        )
