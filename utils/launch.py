"""A cached launcher: `Launcher(kernel)[grid](*args, **constexprs)` does what `kernel[grid](...)` does, with
Triton's Python dispatch done once per specialisation instead of on every call.

`kernel[grid](...)` binds the arguments, works out how each one specialises the kernel, builds a cache key,
looks the compiled kernel up, then calls its C launcher. The C launcher costs about what torch's own dispatch
does; the Python around it is most of an eager launch's host time (notebook 07 measures the tiers). Here the
first call of each specialisation goes through the JIT (which compiles, or finds its cached kernel, and
launches), and keeps the `CompiledKernel` it returns; later calls with the same key call that kernel's `run`
directly (on 3.5 and 3.6 the C function under it), on Triton's current stream, with each tensor given as its
address: the C launcher then skips a `data_ptr` lookup and a driver query per pointer, which the key's first
launch already made.

An autotuned kernel (`triton.autotune` of a jit kernel) is keyed on the values of its tuning key as well, and
keeps the config the autotuner chose with the compiled kernel, so a lookup costs what a plain kernel's does
instead of the autotuner's own Python on every call. `with_launchers(module)` puts a Launcher in place of
every kernel a module defines, so that its host functions launch through them unchanged.

The key holds everything the JIT specialises on, so a cached kernel is never run on arguments it was not
compiled for: each tensor's dtype, whether its address is a multiple of 16 bytes (a kernel compiled for
aligned pointers issues 16-byte loads, which fault on `x[1:]`) and whether it is on the GPU (a host tensor's
key goes through the JIT, which refuses it, never to a kernel as an address); each integer's `== 1`, `% 16 ==
0` and whether it fits in 32 bits; the value of every constexpr and launch option; the current device. It is
stricter than the JIT's where that is simpler (a `do_not_specialize` integer is still keyed), which costs at
most one more trip through the JIT.

`CompiledKernel.run`'s argument list is internal to Triton (grid, stream, function, packed metadata, launch
metadata, two launch hooks, then every argument of the kernel, constexprs included). It was read in the source
of triton 3.3.1, 3.4.0, 3.5.1, 3.7.1, 3.8.0 and 3.9.0, and 3.6.0 runs it in the GPU tests
(RUN_SIGNATURE_READ); on any other version, in the interpreter, or without a GPU, the launcher calls
`kernel[grid](...)` every time and says so on its first call. Triton's launch hooks (its profiler's) are not
called on the fast path, and neither is the JIT's check that the globals a kernel reads have not changed.

Why not an existing library: torch.compile's static launcher (`torch._inductor`) launches kernels that
Inductor compiled itself, and `torch.library.triton_op` routes a call through torch's dispatcher, which costs
more than it saves for one eager op (notebook 07 measures both).
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

import torch
import triton
from triton.runtime.autotuner import Autotuner, Heuristics
from triton.runtime.jit import KernelInterface

from utils.notebooks import jit_helpers

# (major, minor) versions whose JITFunction.run calls `kernel.run(gx, gy, gz, stream, function,
# packed_metadata, launch_metadata, enter_hook, exit_hook, *every bound argument)` (see the docstring).
RUN_SIGNATURE_READ = frozenset({(3, 3), (3, 4), (3, 5), (3, 6), (3, 7), (3, 8), (3, 9)})
# Versions whose `run` (a CudaLauncher) calls its C function as `launch(gx, gy, gz, stream, function,
# cooperative, pdl, global_scratch, profile_scratch, packed_metadata, launch_metadata, enter_hook,
# exit_hook, *arguments)`: read in 3.5.1's source, run by the GPU tests on 3.6.0. Calling it directly
# skips run's own Python (about 1 us of 5 on an H200); 3.3 and 3.4 pass fewer scratch arguments and 3.7
# on pass the arguments as one tuple, so they go through run.
DIRECT_LAUNCH = frozenset({(3, 5), (3, 6)})

_module = sys.modules[__name__]
# Above 0 while utils.launches watches every launch (it wraps the JIT's `run`, which the fast path skips):
# then every call goes through kernel[grid], so that a count or a check sees it.
watchers = 0


def _say(reason: str, kernel) -> None:
    name = getattr(kernel, "__name__", None) or getattr(kernel.fn, "__name__", "the kernel")
    print(f"utils.launch: {reason}; launching {name} through kernel[grid](...) instead (correct, slower).")


def triton_version() -> tuple[int, int]:
    """(major, minor) of the Triton imported now: read on each call, so that a test can stand in another."""
    major, minor = triton.__version__.split(".")[:2]
    return int(major), int(minor)


def fast_path_unavailable() -> str | None:
    """Why the launcher cannot call CompiledKernel.run here (None: it can)."""
    if os.environ.get("TRITON_INTERPRET") == "1":
        return "the interpreter runs kernels in Python, with no compiled kernel to call"
    version = triton_version()
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


def _key_lines(name: str, i: int, by_value: bool) -> list[str]:
    """Lines of the generated code that set `k{i}`, one parameter's part of the key (one hashable object,
    not a tuple where it can be avoided: the key is hashed on every call), and `a{i}`, what run() is given
    for it. A tensor is keyed on its dtype, whether its address is a multiple of 16 bytes and whether it
    is on the GPU, and run() is given its address, an int (the C launcher then neither looks up data_ptr
    nor asks the driver whether the pointer is a device one: it was checked by the key's first launch, and
    the key keeps host tensors apart); an int on `== 1`, `% 16 == 0` and whether it fits in 32 bits (or is
    2^63 or more); anything with a data_ptr (a tensor subclass, a tensor-like) as a tensor, passed as it
    is; a constexpr (or an autotuner's key) on its value."""
    if by_value:
        return [f"k{i} = ('value', {name})", f"a{i} = {name}"]
    tensor = (
        f"{name}.dtype if {{p}} & 15 == 0 and {name}.is_cuda else ({name}.dtype, "
        f"'aligned' if {{p}} & 15 == 0 else 'unaligned', 'gpu' if {name}.is_cuda else 'host')"
    )
    narrow = f"-2147483648 <= {name} <= 2147483647"
    integer = (
        f"(1 if {name} == 1 else 16 if {name} & 15 == 0 else 0) if {narrow} "
        f"else ('wide', {name} & 15 == 0, {name} >= 9223372036854775808)"
    )
    return [
        f"if type({name}) is Tensor:",  # first: most arguments are tensors
        f"    a{i} = {name}.data_ptr()",
        f"    k{i} = {tensor.format(p=f'a{i}')}",
        "else:",
        f"    a{i} = {name}",
        f"    k{i} = ({integer}) if type({name}) is int else "
        f"({tensor.format(p=f'{name}.data_ptr()')}) if hasattr({name}, 'data_ptr') else other({name})",
    ]


def argument_key(value: Any, constexpr: bool) -> Any:
    """The part of the cache key for one argument, as the launcher computes it."""
    scope: dict[str, Any] = {"Tensor": torch.Tensor, "other": _other_key}
    body = "".join(f"    {line}\n" for line in _key_lines("value", 0, constexpr))
    exec(f"def part(value):\n{body}    return k0\n", scope)
    return scope["part"](value)


# A launcher's key and launch functions, generated for its kernel's signature (as the JIT's own binder
# is): Python binds the arguments in C, and each parameter's key part and place in run() are written out,
# where a loop over the parameters would cost about as much as the launch saves.
_SOURCE = """
def key_of(device, {signature}, **options):
{key_lines}
    return (device, tuple(options.items()), {parts})

def launch(grid, {signature}, **options):
    if module.watchers:
        return kernel[grid]({leading}{passed}**options)
{key_lines}
    device = get_device()
    key = (device, tuple(options.items()), {parts})
    entry = compiled.get(key)
    if entry is None:
        return first(grid, key, ({leading}), {{{named}}}, options)
    ck, call, function, head, chosen = entry
    if callable(grid):
        grid = grid({{{every_named}}})
    size = len(grid)
    call(
        grid[0], grid[1] if size > 1 else 1, grid[2] if size > 2 else 1, get_stream(device), function,
        *head, {every},
    )
    return ck
"""


class _Chosen:
    """The default of a parameter an autotuner's configs set: the caller does not pass it."""


class _Missing:
    """The default of a parameter with none that follows one with a default (a config's, say): Python
    needs one there. Left out by the caller, it reaches the key's first launch, which says so."""


class Launcher:
    """`Launcher(kernel)[grid](*args, **kwargs)` for a @triton.jit kernel, or a `triton.autotune` of one:
    see the module's docstring. An autotuned kernel is also keyed on the values of its tuning key, and the
    config the autotuner chose for that key is kept with the compiled kernel; a config with a pre_hook is
    never cached (the hook must run before every launch). Other attributes are the kernel's."""

    def __init__(self, kernel):
        self.kernel = kernel
        tuned = isinstance(kernel, Autotuner)
        jit = kernel.fn if tuned else kernel
        if isinstance(jit, (Autotuner, Heuristics)) or not callable(getattr(jit, "fn", None)):
            raise TypeError(
                "Launcher takes a @triton.jit kernel or a triton.autotune of one, not "
                f"{type(kernel).__name__} (a triton.heuristics wrapper, say): launch it with kernel[grid]"
            )
        params = list(inspect.signature(jit.fn).parameters.values())  # the Python function under the kernel
        self.names = [p.name for p in params]
        tuned_on = set(kernel.keys) if tuned else set()
        self.set_by_configs = {name for c in kernel.configs for name in c.kwargs} if tuned else set()
        # key -> (CompiledKernel, its run, function and packed metadata, read once, and the values an
        # autotuner chose for the parameters its configs set)
        self.compiled: dict[tuple, tuple[Any, Callable, Any, Any, dict]] = {}
        self.unavailable = fast_path_unavailable()
        self.said = False  # whether this launcher has said why it has no fast path
        driver = None if self.unavailable else triton.runtime.driver.active  # none without a GPU
        scope: dict[str, Any] = {
            "Tensor": torch.Tensor,
            "other": _other_key,
            "module": _module,
            "kernel": kernel,
            "compiled": self.compiled,
            "first": self._first,
            # torch's C getter where it has one: 0.1 us a call, its Python wrapper (Triton's getter) 0.3
            "get_device": driver and getattr(torch._C, "_cuda_getDevice", driver.get_current_device),
            "get_stream": driver and driver.get_current_stream,  # about 0.1 us; torch's 7
        }
        signature, key_lines, parts, every = [], [], [], []
        for i, p in enumerate(params):
            chosen = p.name in self.set_by_configs
            if chosen:
                scope[f"default{i}"] = _Chosen
                every.append(f"chosen[{p.name!r}]")
            else:
                every.append(f"a{i}")
                parts.append(f"k{i}")
                # keyed by value: constexprs (as Triton reads annotations) and what an autotuner tunes on
                by_value = "constexpr" in str(p.annotation) or p.name in tuned_on
                key_lines += [f"    {line}" for line in _key_lines(p.name, i, by_value)]
                if p.default is not inspect.Parameter.empty:
                    scope[f"default{i}"] = p.default
                elif any(name.startswith("default") for name in scope):  # a default came before it
                    scope[f"default{i}"] = _Missing
            signature.append(p.name if f"default{i}" not in scope else f"{p.name}=default{i}")
        first_chosen = next(
            (i for i, n in enumerate(self.names) if n in self.set_by_configs), len(self.names)
        )
        source = _SOURCE.format(
            signature=", ".join(signature),
            key_lines="\n".join(key_lines),
            parts=", ".join(parts),
            passed="".join(f"{n}={n}, " for n in self.names[first_chosen:] if n not in self.set_by_configs),
            # an autotuner's prune functions see only the positional arguments: all before its first config's
            leading="".join(f"{n}, " for n in self.names[:first_chosen]),
            named=", ".join(f"{n!r}: {n}" for n in self.names[first_chosen:] if n not in self.set_by_configs),
            # a grid function is given the arguments as the JIT gives them (tensors, not addresses)
            every_named=", ".join(
                f"{n!r}: {n if e.startswith('a') else e}" for n, e in zip(self.names, every)
            ),
            every=", ".join(every),
        )
        exec(source, scope)
        self._key_of, self._launch = scope["key_of"], scope["launch"]

    def __getattr__(self, name: str) -> Any:
        if name == "kernel":  # not set yet: no recursion through the line below
            raise AttributeError(name)
        return getattr(self.kernel, name)  # best_config, configs, fn and the like

    def __getitem__(self, grid: Sequence[int] | Callable) -> Callable[..., Any]:
        if self.unavailable:
            if not self.said:  # once per launcher: a notebook run twice prints the same
                _say(self.unavailable, self.kernel)
                self.said = True
            return self.kernel[grid]
        return functools.partial(self._launch, grid)

    def key(self, device: int, args: tuple, kwargs: dict) -> tuple:
        """The cache key of a launch with these arguments on this device."""
        return self._key_of(device, *args, **kwargs)

    def _first(self, grid, key: tuple, leading: tuple, named: dict, options: dict):
        """A key's first launch: through the JIT (or the autotuner), which compiles or finds the kernel;
        what it returns is kept under the key, with the autotuner's choice."""
        given = dict(zip(self.names, leading)) | named
        missing = [name for name, value in given.items() if value is _Missing]
        if missing:
            name = getattr(self.kernel.fn, "__name__", "the kernel")
            raise TypeError(f"{name}: missing argument(s) {missing}")
        compiled = self.kernel[grid](*leading, **named, **options)
        config = getattr(self.kernel, "best_config", None)
        if config is None or config.pre_hook is None:
            chosen = config.all_kwargs() if config is not None else {}
            self.compiled[key] = (compiled, *_caller(compiled), chosen)
        return compiled


def _caller(compiled) -> tuple[Callable, Any, tuple]:
    """(what to call, the kernel's function handle, the arguments that go between the stream and the
    kernel's own) for a compiled kernel: its `run`, or on the versions in DIRECT_LAUNCH the C function
    that `run` calls, when the kernel needs no scratch memory that `run` would allocate first."""
    run = compiled.run
    metadata = compiled.packed_metadata
    version = triton_version()
    direct = getattr(run, "launch", None)
    if (
        version in DIRECT_LAUNCH
        and direct is not None
        and getattr(run, "global_scratch_size", 1) == 0
        and getattr(run, "profile_scratch_size", 1) == 0
    ):
        head = (run.launch_cooperative_grid, run.launch_pdl, None, None, metadata, None, None, None)
        return direct, compiled.function, head
    return run, compiled.function, (metadata, None, None, None)


def caller_of(compiled, kernel, **options) -> Callable[..., None]:
    """`call(grid, *args)`: launch `compiled`, what `kernel[grid](...)` returned, as Launcher's fast path
    does, with `args` every argument of the kernel in order, constexprs included, and `options` the launch
    options (num_warps=...) it was compiled with. Which arguments the compiled kernel fits is the caller's
    to decide (notebook 07's exercise 3 keys a dict of callers); a host tensor must not reach it. Where
    Launcher has no fast path (see fast_path_unavailable, or `compiled` is None, as in the interpreter),
    and while utils.launches watches launches, it calls `kernel[grid](*args, **options)` instead."""

    def through_jit(grid, *args):
        kernel[grid](*args, **options)

    if fast_path_unavailable() or compiled is None:
        return through_jit
    call, function, head = _caller(compiled)
    driver = triton.runtime.driver.active
    get_device = getattr(torch._C, "_cuda_getDevice", driver.get_current_device)
    get_stream, tensor = driver.get_current_stream, torch.Tensor

    def launch(grid, *args):
        if watchers:
            return through_jit(grid, *args)
        size = len(grid)
        call(
            grid[0],
            grid[1] if size > 1 else 1,
            grid[2] if size > 2 else 1,
            get_stream(get_device()),
            function,
            *head,
            *[a.data_ptr() if type(a) is tensor else a for a in args],
        )

    return launch


def with_launchers(module) -> list[str]:
    """Replace each kernel in `module` (a @triton.jit function or a triton.autotune of one) by a Launcher of
    it, so that its host functions, which look their kernels up by name, launch through them; returns the
    names replaced. Left alone: a triton.heuristics wrapper, and a helper (utils.notebooks.jit_helpers)."""
    jits, sources = {}, {}
    for name, value in vars(module).items():
        jit = value.fn if isinstance(value, Autotuner) else value
        # a jit kernel, or in the interpreter an InterpretedFunction: KernelInterfaces, as the wrappers are
        if isinstance(jit, KernelInterface) and not isinstance(jit, (Autotuner, Heuristics)):
            jits[name], sources[name] = value, inspect.getsource(jit.fn)
    helpers = jit_helpers(sources)
    for name in jits.keys() - helpers:
        setattr(module, name, Launcher(jits[name]))
    return [name for name in jits if name not in helpers]
