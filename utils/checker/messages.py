"""The sentences a learner reads: the checker's own mistakes, and those several families share.

A family's own messages live with its predictions (utils.checker.families); `model.mistakes` fills
in each exercise's words ({identity}, {reset}, {nan_hint}, ...).
"""

ENGINE_MISTAKES = {
    "not_written": "out was never written: the kernel has no tl.store (or atomic) into out, no program "
    "reached it (a condition none met, such as a last-ticket test that no ticket passes: tl.atomic_add "
    "returns the count before its add, so the last of P programs draws P - 1), it was never launched, or "
    "it was given another tensor (out = torch.zeros_like(out) makes a new one, and out.data = result "
    "points out at other memory: the caller's memory sees neither; out.zero_() resets the caller's, and "
    "out.copy_(result) writes into it).",
    "not_written_where_failing": "out still held its value from before the call in every failing case, "
    "and the passing cases wrote it: on those calls nothing was stored into out, or only its old value "
    "again, and no mistake of values explains it. Look for a store under a condition that no program met "
    "there (such as a last-ticket test that no ticket passes on those grids: tl.atomic_add returns the "
    "count before its add, so the last of P programs draws P - 1, tl.num_programs(0) - 1, not a block "
    "size or a fixed number; or a ticket kept from an earlier call and never put back to 0), or a host "
    "path that, for those sizes, launches nothing or launches on another tensor.",
    "strided_out_not_written": "{out} was left as it was in every case where it is a transposed or sliced "
    "view, and right in every case where it is contiguous: the results went into another tensor, such as "
    "the copy that {out}.contiguous() (or {out}.reshape(...)) returns for a strided view; writing into "
    "that copy leaves {out} unchanged. Launch on {out} itself with its own strides, or copy the result "
    "back ({out}.copy_(result)).",
    "returned_instead_of_out": "your function returned a value but left out untouched: exercises write "
    "their answer into out (destination-passing style): with tl.store(out_ptr + offsets, ...) in the "
    "kernel, or, for a result finished on the host, out.copy_(result).",
    "out_with_input_strides": "only the cases whose inputs are transposed or sliced fail, and on some of "
    "them the kernel wrote past the end of out, which is contiguous here, while the same values laid out "
    "contiguously pass: out was stored with an input's strides. Store out with its own, out.stride(0) "
    "and out.stride(1).",
    "read_past_end": "a tl.load let lanes past a tensor's end through (no mask, or a mask wider than the "
    "tensor), and what they read stayed out of the result: those lanes were never stored, or what they "
    "read was multiplied by another load's masked 0 (harmless only while that memory holds no inf or "
    "NaN). "
    "On a GPU such a read may fault, or read another tensor's memory. Give every tl.load the mask of the "
    "lanes its tensor has (offsets < n, not <= n; cols < n_cols for a row's columns or a weight).",
    "out_of_bounds_write": "the kernel wrote outside out: a tl.store (or atomic) without mask=offsets < n, "
    "a mask one lane too wide (offsets <= n), or output offsets that run past the end.",
    "unordered_stores": "several programs store into one element with a plain tl.store, and nothing orders "
    "them: a running result that each program loads, combines with its own and stores back, a value each "
    "program writes, or a store whose mask or offsets reach into another program's part. On a GPU two "
    "programs can load the same old value, and one's part is lost; or the last to store wins. Combine "
    "across programs with an atomic (tl.atomic_add, tl.atomic_max) into an out reset before the launch, or "
    "store one partial per program and combine them in a second stage; keep each store in its own part.",
    "out_of_bounds_access": "a tl.load, tl.store or atomic with offsets that run far past a tensor: a "
    "missing mask (mask=offsets < n), a grid over the wrong axis (programs for "
    "columns where the kernel takes a row per program, or triton.cdiv with the "
    "wrong length), a wrong stride (a row stride used as a column stride, or one "
    "counted in bytes), or a scratch smaller than the grid (torch.empty(n // "
    "BLOCK_SIZE) for triton.cdiv(n, BLOCK_SIZE) programs).",
    "varies_between_runs": "the values are wrong and change from one run to the next on the same input: "
    "programs that race (several plain tl.store to one element, where an atomic or a "
    "second stage must combine them), memory read before anything wrote it (a "
    "torch.empty scratch read where no program stored), or state that one call leaves "
    "for the next (a ticket or a workspace that is never reset).",
    "out_of_bounds_read": "the result depends on memory beyond the end of the input: a tl.load without "
    "mask=offsets < n, a mask one lane too wide (offsets <= n), or offsets that run past the end.",
    "stale_out": "the answer includes whatever out held before the launch: the kernel added onto out's "
    "old contents instead of replacing them. With atomics, reset out first ({reset}); a kernel that "
    "loads out and stores out plus its result should store its result alone.",
    "produced_nan": "the result is NaN: {nan_hint}",
    "not_deterministic": "repeated runs on the same input gave different bits: the combine order depends "
    "on timing (atomics). Write partials to scratch and combine them in one program.",
    "input_modified": "the call changed an input that it should only read: a tl.store (or atomic) into an "
    "input's pointer, or an in-place operation on the host (x.sub_(...), dy *= w, a .copy_() into an "
    "input). Store only into the output tensor, and leave every input as the caller passed it.",
    "earlier_input_reused": "out held the answer to the call before, whose input had the same shape: "
    "something computed from an input was kept between calls and reused (a cached copy of the input, a "
    "cached result, or a workspace or scratch kept by shape). Compute from each call's own input; keep "
    "across calls only memory that every call fully overwrites before reading it.",
    "kept_by_shape": "something kept from an earlier call of the same shape was used for a call whose "
    "tensors are laid out otherwise (a cached launch, grid, strides or workspace keyed on the shape "
    "alone). Key what you keep on everything it depends on, the strides included, or keep nothing.",
    "wrong_values": "the values are wrong, and none of the common mistakes explains them: compare your "
    "kernel line by line with the pattern in the notebook.",
}


# The mistakes of tiling a 1-D input, shared by the elementwise, total and transform families.
TILE_MESSAGES = {
    "wrong_sentinel": "the masked lanes past the end changed the result: other= must be the identity of "
    "the operation ({identity}).",
    "missing_program_offset": "every program worked on the first tile (or on a window that pid alone "
    "shifts): the offsets are missing pid * BLOCK_SIZE (pid = tl.program_id(0); tl.program_id(1) is 0 on a "
    "1-D grid).",
    "first_tile_only": "only a prefix of the input was reduced, a power-of-two number of its first elements: "
    "a grid of one program without a loop, a grid capped below triton.cdiv(n, BLOCK_SIZE) without a loop "
    "over the rest, offsets missing pid * BLOCK_SIZE, a second stage that reads only its first block of "
    "partials, or an n too small given to the kernel (a length read from another tensor: out.numel() where "
    "x.numel() is meant).",
    "tail_not_processed": "the end of x, past a multiple of a power of two, was left out: the last, partial "
    "tile skipped (the grid must be triton.cdiv(n, BLOCK_SIZE), not n // BLOCK_SIZE), or x shared among "
    "programs in parts rounded down (n // programs each: round up, and end the last part at n).",
    "grid_block_mismatch": "the grid and the kernel disagree on BLOCK_SIZE: the launch made "
    "triton.cdiv(n, B) programs for a larger B than the kernel's tiles, so the end of x was never "
    "covered. Use one BLOCK_SIZE for both: kernel[(triton.cdiv(n, BLOCK_SIZE),)](..., "
    "BLOCK_SIZE=BLOCK_SIZE).",
    "store_race": "out holds one program's partial, not all of them combined: several programs wrote the "
    "same element with a plain tl.store, and only the last writer's value survives. Combine "
    "them with an atomic (into an out reset before the launch), or store one partial per "
    "program to scratch and reduce the partials in a second stage.",
}
# A two-stage reduction's own words for two effects the tiling shares with atomics: stage 1 stores one
# partial per program into a scratch and stage 2, one program, combines them and stores once, so nothing
# adds into out and nothing resets it.
TWO_STAGE_MESSAGES = {
    "wrong_sentinel": "a value that is no element of x reached the result, as a wrong other= past the end "
    "of x or of the partials would: other= must be the identity of the operation ({identity}) in both "
    "stages, and stage 2 must combine only the partials this call's programs stored (a scratch slot that "
    "no program of this call wrote, left at 0, at what torch.empty held or at an earlier call's partial, "
    "does the same harm).",
    "store_race": "out holds only part of the partials combined: the last of several plain tl.store into "
    "one element survived (programs storing into out, where only stage 2's one program should), or a loop "
    "assigns its accumulator (acc = tl.load(...)) instead of combining into it (stage 2's loop over the "
    "partials then keeps only its last block). Stage 1 stores one partial per program into the scratch; "
    "stage 2 combines every one of them into its accumulator and stores once.",
    "combined_by_torch": "the partials were combined by a torch operation on the device, not by a "
    "Triton kernel: stage 2 is the exercise's second kernel, one program that loads the partials, "
    "combines them in a fixed order and stores the result into out.",
    "stale_out": "the answer includes what out held before the call: a stage combined into out instead "
    "of storing into it (an atomic, or stage 2's running value started from tl.load(out_ptr)). Nothing "
    "resets out in two stages: stage 2 starts at {start} and stores its result with tl.store.",
}
# Words shared by the exercises that reduce to a sum: what a masked lane loads, how out is reset.
SUM_WORDS = dict(identity="other=0.0 for a sum", reset="out.zero_() before the launch")


# The mistakes of a one-launch reduction (notebook 07), judged before the battery by utils.checker.probes: the
# launches of one call (utils.launches), and calls in a row (the state probe, utils.checker.one_launch).
ONE_LAUNCH_MESSAGES = {
    "extra_launches": "a call's work on the device was not one Triton launch: a one-launch reduction "
    "runs one Triton kernel and no other work on the device, whatever the size (no path of torch for "
    "small inputs, no result kept from an earlier call). No out.zero_() or torch.zeros for the ticket on "
    "each call, no second kernel, no finish on the host ({finish}) after it: keep the partials and the "
    "ticket in a workspace allocated once, and let the last program combine, finish, store and reset the "
    "ticket.",
    "state_not_reset": "a call left something behind that the next one trips over (the ticket did not "
    "return to where it was, or a right call was followed by a wrong one on the same input). The last "
    "program must put the ticket back to 0 once it has combined (tl.atomic_xchg(ticket_ptr, 0) or "
    "tl.store(ticket_ptr, 0)), and nothing in the workspace may keep adding up from one call to the next.",
    "not_written": "out was never written: no program stored into out, or none passed the test for the "
    "last ticket. tl.atomic_add returns the value before its add, so the last of P programs draws P - 1: "
    "test ticket == tl.num_programs(0) - 1.",
    "stale_partials": "right only when the call before had the same input: the combine read partials "
    "left in the workspace by the call before. Each program must store its partial before it takes its "
    "ticket (the atomic with sem='acq_rel' publishes the stores made before it), and only the program "
    "that drew the last ticket may read the partials.",
    "stale_slots": "the combine read slots of the partials that this call's programs did not write: after "
    "a call of more programs they still hold that call's partials (and on a first call, whatever "
    "torch.empty left). Load only this call's slots: mask=offsets < tl.num_programs(0), with "
    "{identity}.",
    "workspace_sized_by_first_call": "the workspace was sized for the first call's programs and kept, so "
    "a later call with more programs stores (and combines) past its end. Allocate the partials once, for "
    "the most programs any call launches (the grid's cap), and launch at most that many.",
    "added_into_out": "the total was added into out (tl.atomic_add) instead of stored, so out keeps what "
    "it held before the call. Nothing resets out in a one-launch reduction: the program that combines "
    "must tl.store the result.",
    "ticket_not_zeroed": "the ticket did not start at 0. A ticket from torch.empty holds whatever the "
    "memory held, and one that the last program never puts back to 0 holds the count of every call "
    "before (your own cells' calls included): allocate it with torch.zeros, once, with the workspace, and "
    "let the last program put it back to 0.",
    "last_ticket_missed": "no program passed the test for the last ticket. tl.atomic_add returns the "
    "value before its add, so of P programs the last draws P - 1: test ticket == tl.num_programs(0) - 1 "
    "(a count of the programs worked out elsewhere, such as on the host, must be the grid's own).",
}
