"""Zoo of 10-train's make_batch, noam_rate and greedy_decode, right and wrong.

They are checked by autograder.checks.train (their results are a dict, a number and a
sequence decoded with a model), through the same autograder.checks.check.
"""
import math

import torch

from . import bug, right

@right("make_batch")
def batch_right(src, tgt, pad_idx=0):
    tgt_in, tgt_out = tgt[:, :-1], tgt[:, 1:]
    size = tgt_in.size(1)
    causal = torch.ones(size, size, dtype=torch.bool, device=tgt.device).tril()
    return {"src": src, "src_mask": (src != pad_idx).unsqueeze(1).unsqueeze(2), "tgt_in": tgt_in, "tgt_out": tgt_out,
            "tgt_mask": (tgt_in != pad_idx)[:, None, None, :] & causal, "n_tokens": (tgt_out != pad_idx).sum().item()}


@bug("make_batch", "batch-no-shift", "values", "masks")
def batch_no_shift(src, tgt, pad_idx=0):
    size = tgt.size(1)
    causal = torch.tril(torch.ones(size, size)).bool()
    return {"src": src, "src_mask": (src != pad_idx)[:, None, None], "tgt_in": tgt, "tgt_out": tgt,
            "tgt_mask": (tgt != pad_idx)[:, None, None] & causal, "n_tokens": int((tgt != pad_idx).sum())}


@bug("make_batch", "wrong-values", "properties")
def batch_counts_padding(src, tgt, pad_idx=0):
    result = batch_right(src, tgt, pad_idx)
    result["n_tokens"] = result["tgt_out"].numel()
    return result


@bug("make_batch", "wrong-interface", "properties")
def batch_tensor_count(src, tgt, pad_idx=0):
    result = batch_right(src, tgt, pad_idx)
    result["n_tokens"] = (result["tgt_out"] != pad_idx).sum()
    return result


@bug("make_batch", "shape", "masks")
def batch_mask_from_tgt(src, tgt, pad_idx=0):
    result = batch_right(src, tgt, pad_idx)
    size = tgt.size(1)
    result["tgt_mask"] = (tgt != pad_idx)[:, None, None, :] & torch.ones(size, size, dtype=torch.bool).tril()
    return result


@bug("make_batch", "not-implemented", "values", "masks", "properties")
def batch_stub(src, tgt, pad_idx=0):
    # YOUR CODE HERE
    raise NotImplementedError()


@bug("noam_rate", "not-implemented", "values", "properties")
def noam_stub(step, d_model, warmup, factor=1.0):
    # YOUR CODE HERE
    raise NotImplementedError()


@bug("greedy_decode", "not-implemented", "values", "properties", "device")
@torch.no_grad()
def greedy_stub(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    memory = model.encode(src, src_mask)
    # YOUR CODE HERE
    raise NotImplementedError()


@right("noam_rate")
def noam_right(step, d_model, warmup, factor=1.0):
    step = 1 if step == 0 else step
    return factor * (d_model ** -0.5) * min(1 / math.sqrt(step), step / warmup ** 1.5)


@bug("noam_rate", "wrong-interface", "values", "properties", visible="wrong-interface")
def noam_tensor(step, d_model, warmup, factor=1.0):
    """A 0-dim tensor: the right rate, but noam_rate returns a Python number (COURSE.md, docstring, hint 2)."""
    step = torch.tensor(float(max(step, 1)))
    return factor * d_model ** -0.5 * torch.minimum(step.rsqrt(), step * warmup ** -1.5)


@bug("noam_rate", "wrong-values", "values", visible="property-violated")
@bug("noam_rate", "property-violated", "properties")
def noam_one_step_ahead(step, d_model, warmup, factor=1.0):
    """Off by one: step + 1, so noam_rate(0) is the rate of step 1 and noam_rate(1) that of step 2."""
    step = step + 1
    return factor * d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)


@bug("noam_rate", "noam-no-warmup", "values", "properties")
def noam_no_warmup(step, d_model, warmup, factor=1.0):
    return factor * d_model ** -0.5 * max(step, 1) ** -0.5


@bug("noam_rate", "wrong-values", "values")
@bug("noam_rate", "property-violated", "properties")
def noam_no_factor(step, d_model, warmup, factor=1.0):
    step = max(step, 1)
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)


@right("greedy_decode")
@torch.no_grad()
def greedy_right(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    memory = model.encode(src, src_mask)
    ys = torch.ones(src.size(0), 1, dtype=torch.long, device=src.device) * bos_idx
    done = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    for _ in range(max_len - 1):
        size = ys.size(1)
        mask = torch.tril(torch.ones(size, size, device=src.device)).bool().unsqueeze(0)
        log_probs = model.generator(model.decode(memory, src_mask, ys, mask))  # generator on every position
        next_token = log_probs[:, -1].max(dim=-1).indices
        ys = torch.cat([ys, next_token[:, None]], dim=1)
        if eos_idx is not None:
            done |= next_token == eos_idx
            if done.all():
                break
    return ys


@right("greedy_decode")
@torch.no_grad()
def greedy_right_runs_to_max_len(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    """Never stops early, and pads after each row's eos: allowed."""
    ys = greedy_right(model, src, src_mask, max_len, bos_idx)
    if eos_idx is not None:
        after = (ys == eos_idx).long().cumsum(1).roll(1, 1).clamp(max=1).bool()
        after[:, 0] = False
        ys = ys.masked_fill(after, 0)
    return ys


@bug("greedy_decode", "greedy-no-feedback", "values", "properties")
@torch.no_grad()
def greedy_no_feedback(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    memory = model.encode(src, src_mask)
    start = torch.full((src.size(0), 1), bos_idx, dtype=torch.long, device=src.device)
    ys = start
    for _ in range(max_len - 1):
        out = model.decode(memory, src_mask, start, torch.ones(1, 1, 1, dtype=torch.bool, device=src.device))
        ys = torch.cat([ys, model.generator(out[:, -1]).argmax(-1, keepdim=True)], 1)
    return ys


@bug("greedy_decode", "device", "device")
@torch.no_grad()
def greedy_cpu_start(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    memory = model.encode(src, src_mask)
    ys = torch.full((src.size(0), 1), bos_idx, dtype=torch.long)  # on the CPU, whatever src is on
    for _ in range(max_len - 1):
        size = ys.size(1)
        out = model.decode(memory, src_mask, ys, torch.ones(1, size, size, dtype=torch.bool).tril())
        ys = torch.cat([ys, model.generator(out[:, -1]).argmax(-1, keepdim=True)], 1)
    return ys


@bug("greedy_decode", "property-violated", "properties")
@torch.no_grad()
def greedy_encodes_every_step(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    ys = torch.full((src.size(0), 1), bos_idx, dtype=torch.long, device=src.device)
    for _ in range(max_len - 1):
        size = ys.size(1)
        mask = torch.ones(1, size, size, dtype=torch.bool, device=src.device).tril()
        ys = torch.cat([ys, model(src, ys, src_mask, mask)[:, -1].argmax(-1, keepdim=True)], 1)
    return ys


@bug("greedy_decode", "shape", "values")
@torch.no_grad()
def greedy_one_too_many(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    memory = model.encode(src, src_mask)
    ys = torch.full((src.size(0), 1), bos_idx, dtype=torch.long, device=src.device)
    for _ in range(max_len):  # one step too many
        size = ys.size(1)
        out = model.decode(memory, src_mask, ys, torch.ones(1, size, size, dtype=torch.bool, device=src.device).tril())
        ys = torch.cat([ys, model.generator(out[:, -1]).argmax(-1, keepdim=True)], 1)
    return ys


# ------------------------------------------------------------------ issue 16: the walkthrough's mistakes
# (tests/walkthrough/cases_10.py), as the hidden checks see them

def _greedy_loop(model, src, src_mask, max_len, bos_idx, eos_idx=None, *, read=lambda ys: ys, position=-1,
                 generator=True, mask_device=True, stop_any=False):
    memory = model.encode(src, src_mask)
    ys = torch.full((src.size(0), 1), bos_idx, dtype=torch.long, device=src.device)
    for _ in range(max_len - 1):
        tokens = read(ys)
        size = tokens.size(1)
        mask = torch.ones(1, size, size, dtype=torch.bool, device=src.device if mask_device else None).tril()
        out = model.decode(memory, src_mask, tokens, mask)[:, position]
        ys = torch.cat([ys, (model.generator(out) if generator else out).argmax(-1, keepdim=True)], 1)
        if eos_idx is not None and ((ys == eos_idx).any() if stop_any else (ys == eos_idx).any(1).all()):
            break
    return ys


@bug("greedy_decode", "wrong-values", "values")
@torch.no_grad()
def greedy_first_position(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    """out[:, 0]: ys is fed back, but the token is read at the first position (named by its detail, not greedy-no-feedback)."""
    return _greedy_loop(model, src, src_mask, max_len, bos_idx, eos_idx, position=0)


@bug("greedy_decode", "wrong-values", "values")
@torch.no_grad()
def greedy_newest_token_only(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    return _greedy_loop(model, src, src_mask, max_len, bos_idx, eos_idx, read=lambda ys: ys[:, -1:])


@bug("greedy_decode", "wrong-values", "values")
@torch.no_grad()
def greedy_no_generator(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    return _greedy_loop(model, src, src_mask, max_len, bos_idx, eos_idx, generator=False)


@bug("greedy_decode", "device", "device")
@torch.no_grad()
def greedy_mask_on_cpu(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    """make_subsequent_mask(t) without device=."""
    return _greedy_loop(model, src, src_mask, max_len, bos_idx, eos_idx, mask_device=False)


@bug("greedy_decode", "shape", "properties")
@torch.no_grad()
def greedy_stops_at_any_eos(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    return _greedy_loop(model, src, src_mask, max_len, bos_idx, eos_idx, stop_any=True)


@bug("greedy_decode", "wrong-values", "values")
@torch.no_grad()
def greedy_no_mask(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    memory = model.encode(src, src_mask)
    ys = torch.full((src.size(0), 1), bos_idx, dtype=torch.long, device=src.device)
    for _ in range(max_len - 1):
        out = model.decode(memory, src_mask, ys, None)
        ys = torch.cat([ys, model.generator(out[:, -1]).argmax(-1, keepdim=True)], 1)
    return ys


@bug("noam_rate", "property-violated", "properties")
def noam_step_zero_unhandled(step, d_model, warmup, factor=1.0):
    """ZeroDivisionError at step 0: named as the property it breaks."""
    return factor * d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)


@bug("noam_rate", "wrong-values", "values")
def noam_larger_term(step, d_model, warmup, factor=1.0):
    step = max(step, 1)
    return factor * d_model ** -0.5 * max(step ** -0.5, step * warmup ** -1.5)


@bug("noam_rate", "wrong-values", "values")
def noam_sqrt_d_model(step, d_model, warmup, factor=1.0):
    step = max(step, 1)
    return factor * d_model ** 0.5 * min(step ** -0.5, step * warmup ** -1.5)


@bug("make_batch", "wrong-values", "masks")
def batch_pad_idx_dropped(src, tgt, pad_idx=0):
    result = batch_right(src, tgt, pad_idx)
    result["src_mask"] = (src != 0)[:, None, None, :]
    result["tgt_mask"] = batch_right(src, tgt, 0)["tgt_mask"]
    return result


@bug("make_batch", "wrong-values", "masks")
def batch_mask_from_tgt_out(src, tgt, pad_idx=0):
    result = batch_right(src, tgt, pad_idx)
    tgt_out, size = result["tgt_out"], result["tgt_out"].size(1)
    result["tgt_mask"] = (tgt_out != pad_idx)[:, None, None, :] & torch.ones(size, size, dtype=torch.bool).tril()
    return result


# ------------------------------------------------------------------ issue 33: wrong, and passed the visible test


def _greedy_steps(model, src, src_mask, max_len, bos_idx, eos_idx, encode_mask, decode_mask, pick):
    memory = model.encode(src, encode_mask)
    ys = torch.full((src.size(0), 1), bos_idx, dtype=torch.long, device=src.device)
    for _ in range(max_len - 1):
        causal = torch.tril(torch.ones(1, ys.size(1), ys.size(1), dtype=torch.bool, device=src.device))
        log_probs = model.generator(model.decode(memory, decode_mask, ys, causal)[:, -1])
        ys = torch.cat([ys, pick(log_probs)], dim=1)
        if eos_idx is not None and (ys == eos_idx).any(dim=1).all():
            break
    return ys


def _argmax(log_probs):
    return log_probs.argmax(dim=-1, keepdim=True)


@bug("greedy_decode", "wrong-values", "values", "properties", visible="property-violated")
@torch.no_grad()
def greedy_encodes_without_the_source_mask(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    return _greedy_steps(model, src, src_mask, max_len, bos_idx, eos_idx, None, src_mask, _argmax)


@bug("greedy_decode", "wrong-values", "values", "properties", visible="property-violated")
@torch.no_grad()
def greedy_decodes_without_the_source_mask(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    return _greedy_steps(model, src, src_mask, max_len, bos_idx, eos_idx, src_mask, None, _argmax)


@bug("greedy_decode", "wrong-values", "values", "properties", visible="property-violated")
@torch.no_grad()
def greedy_samples(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    """A token drawn from the generator's distribution: sampling, not greedy decoding."""
    return _greedy_steps(model, src, src_mask, max_len, bos_idx, eos_idx, src_mask, src_mask,
                        lambda log_probs: torch.multinomial(log_probs.exp(), 1))
