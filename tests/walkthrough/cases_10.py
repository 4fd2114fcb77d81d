"""10-train: realistic mistakes in make_batch, LabelSmoothingLoss, noam_rate and greedy_decode.

Every row also runs the cells after its unit's test up to the next answer cell: the figures, and
after greedy_decode's test the whole training part, which a failing unit skips (section 7 says
which unit to fix first), so these rows stay fast.
"""
from tests.walkthrough import Mistake

NB = "10-train"


def _batch(slices="tgt_in = tgt[:, :-1]\n    tgt_out = tgt[:, 1:]", src_mask="make_pad_mask(src, pad_idx)",
           tgt_mask="make_tgt_mask(tgt_in, pad_idx)", n_tokens="int((tgt_out != pad_idx).sum())"):
    return f'''def make_batch(src, tgt, pad_idx=0):
    """One teacher-forcing batch."""
    {slices}
    src_mask = {src_mask}
    tgt_mask = {tgt_mask}
    n_tokens = {n_tokens}
    return {{"src": src, "src_mask": src_mask, "tgt_in": tgt_in, "tgt_out": tgt_out,
            "tgt_mask": tgt_mask, "n_tokens": n_tokens}}
'''


def _loss(fill="torch.full_like(log_probs, self.smoothing / (self.vocab_size - 2))",
          scatter="true_dist.scatter_(1, target.unsqueeze(1), 1.0 - self.smoothing)",
          zero="true_dist[:, self.pad_idx] = 0\n        true_dist[target == self.pad_idx] = 0",
          loss='F.kl_div(log_probs, true_dist, reduction="sum")'):
    return f'''class LabelSmoothingLoss(nn.Module):
    def __init__(self, vocab_size, pad_idx=0, smoothing=0.1):
        super().__init__()
        self.vocab_size = vocab_size
        self.pad_idx = pad_idx
        self.smoothing = smoothing

    def forward(self, log_probs, target):
        true_dist = {fill}
        {scatter}
        {zero}
        return {loss}
'''


def _noam(first="step = max(step, 1)", shape="shape = min(step ** -0.5, step * warmup ** -1.5)",
          result="return factor * d_model ** -0.5 * shape"):
    return f'''def noam_rate(step, d_model, warmup, factor=1.0):
    """The learning rate at `step`."""
    {first}
    {shape}
    {result}
'''


def _greedy(ys="ys = torch.full((src.size(0), 1), bos_idx, dtype=torch.long, device=src.device)",
            memory="memory = model.encode(src, src_mask)",
            decode="out = model.decode(memory, src_mask, ys, make_subsequent_mask(ys.size(1), device=src.device))",
            pick="next_token = model.generator(out[:, -1]).argmax(dim=-1, keepdim=True)",
            append="ys = torch.cat([ys, next_token], dim=1)",
            stop="if eos_idx is not None and (ys == eos_idx).any(dim=1).all():"):
    return f'''@torch.no_grad()
def greedy_decode(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    """Generate up to max_len tokens per row."""
    {memory}
    {ys}
    for _ in range(max_len - 1):
        {decode}
        {pick}
        {append}
        {stop}
            break
    return ys
'''


ROWS = [
    # ------------------------------------------------------------------ make_batch
    Mistake(NB, "make_batch", "no shift: tgt_in and tgt_out are both the whole target",
            _batch(slices="tgt_in = tgt\n    tgt_out = tgt"), "batch-no-shift"),
    Mistake(NB, "make_batch", "shift the wrong way round: tgt_in = tgt[:, 1:], tgt_out = tgt[:, :-1]",
            _batch(slices="tgt_in = tgt[:, 1:]\n    tgt_out = tgt[:, :-1]"), "batch-no-shift", gives_away="partly"),
    Mistake(NB, "make_batch", "tgt_mask made from the whole target",
            _batch(tgt_mask="make_tgt_mask(tgt, pad_idx)"), "shape", gives_away="partly"),
    Mistake(NB, "make_batch", "tgt_mask made from tgt_out",
            _batch(tgt_mask="make_tgt_mask(tgt_out, pad_idx)"), "wrong-values", gives_away="partly"),
    Mistake(NB, "make_batch", "tgt_mask is the look-ahead mask alone (no padding part)",
            _batch(tgt_mask="make_subsequent_mask(tgt_in.size(1), device=tgt.device)"), "mask-tgt-missing-pad"),
    Mistake(NB, "make_batch", "n_tokens left a 0-dim tensor",
            _batch(n_tokens="(tgt_out != pad_idx).sum()"), "wrong-interface", gives_away="partly"),
    Mistake(NB, "make_batch", "n_tokens counts the whole target (BOS included)",
            _batch(n_tokens="int((tgt != pad_idx).sum())"), "wrong-values"),
    Mistake(NB, "make_batch", "n_tokens counts padding too (numel)",
            _batch(n_tokens="tgt_out.numel()"), "wrong-values"),
    Mistake(NB, "make_batch", "pad_idx not passed on to the mask functions",
            _batch(src_mask="make_pad_mask(src)", tgt_mask="make_tgt_mask(tgt_in)"), "wrong-values"),
    Mistake(NB, "make_batch", "src_mask without the head and query axes",
            _batch(src_mask="src != pad_idx"), "shape"),
    # ------------------------------------------------------------------ LabelSmoothingLoss
    Mistake(NB, "LabelSmoothingLoss", "smoothing spread over V - 1 classes (eps / (V - 1))",
            _loss(fill="torch.full_like(log_probs, self.smoothing / (self.vocab_size - 1))"), "wrong-values",
            gives_away="partly"),
    Mistake(NB, "LabelSmoothingLoss", "rows whose target is padding are kept",
            _loss(zero="true_dist[:, self.pad_idx] = 0"), "loss-counts-padding"),
    Mistake(NB, "LabelSmoothingLoss", "the padding column keeps its smoothing share",
            _loss(zero="true_dist[target == self.pad_idx] = 0"), "wrong-values"),
    Mistake(NB, "LabelSmoothingLoss", "cross-entropy -sum(q log p) instead of the KL divergence",
            _loss(loss="-(true_dist * log_probs).sum()"), "wrong-values"),
    Mistake(NB, "LabelSmoothingLoss", "kl_div with reduction='batchmean'",
            _loss(loss='F.kl_div(log_probs, true_dist, reduction="batchmean")'), "wrong-values"),
    Mistake(NB, "LabelSmoothingLoss", "kl_div with reduction='mean'",
            _loss(loss='F.kl_div(log_probs, true_dist, reduction="mean")'), "wrong-values"),
    Mistake(NB, "LabelSmoothingLoss", "the smoothed target made with torch.full on the CPU",
            _loss(fill="torch.full(log_probs.shape, self.smoothing / (self.vocab_size - 2))"), "device",
            gives_away="partly"),
    Mistake(NB, "LabelSmoothingLoss", "scatter_ with the target not unsqueezed to (N, 1)",
            _loss(scatter="true_dist.scatter_(1, target, 1.0 - self.smoothing)"), "runtime-error"),
    Mistake(NB, "LabelSmoothingLoss", "the target's share added to its smoothing share (scatter_add_)",
            _loss(scatter="true_dist.scatter_add_(1, target.unsqueeze(1), torch.full_like(log_probs[:, :1], 1.0 - self.smoothing))"),
            "wrong-values"),
    Mistake(NB, "LabelSmoothingLoss", "kl_div's arguments swapped (target first)",
            _loss(loss='F.kl_div(true_dist, log_probs, reduction="sum")'), "wrong-values"),
    # ------------------------------------------------------------------ noam_rate
    Mistake(NB, "noam_rate", "step 0 not handled (ZeroDivisionError)", _noam(first="pass"), "property-violated"),
    Mistake(NB, "noam_rate", "no warm-up: d_model ** -0.5 * step ** -0.5",
            _noam(shape="shape = step ** -0.5"), "noam-no-warmup"),
    Mistake(NB, "noam_rate", "max instead of min", _noam(shape="shape = max(step ** -0.5, step * warmup ** -1.5)"),
            "wrong-values"),
    Mistake(NB, "noam_rate", "scaled by d_model ** 0.5", _noam(result="return factor * d_model ** 0.5 * shape"),
            "wrong-values"),
    Mistake(NB, "noam_rate", "factor ignored", _noam(result="return d_model ** -0.5 * shape"), "wrong-values"),
    Mistake(NB, "noam_rate", "warmup ** 1.5 instead of warmup ** -1.5",
            _noam(shape="shape = min(step ** -0.5, step * warmup ** 1.5)"), "noam-no-warmup"),
    Mistake(NB, "noam_rate", "step ** 0.5 instead of step ** -0.5 in the decay term",
            _noam(shape="shape = min(step ** 0.5, step * warmup ** -1.5)"), "wrong-values"),
    # ------------------------------------------------------------------ greedy_decode
    Mistake(NB, "greedy_decode", "the next token read at position 0 (out[:, 0])",
            _greedy(pick="next_token = model.generator(out[:, 0]).argmax(dim=-1, keepdim=True)"), "wrong-values",
            gives_away="partly"),
    Mistake(NB, "greedy_decode", "the whole model called at every step, as beam_search does",
            _greedy(decode="log_probs = model(src, ys, src_mask, make_subsequent_mask(ys.size(1), device=src.device))",
                    pick="next_token = log_probs[:, -1].argmax(dim=-1, keepdim=True)"), "property-violated",
            gives_away="partly"),
    Mistake(NB, "greedy_decode", "ys made without device=",
            _greedy(ys="ys = torch.full((src.size(0), 1), bos_idx, dtype=torch.long)"), "device"),
    Mistake(NB, "greedy_decode", "the look-ahead mask made without device=",
            _greedy(decode="out = model.decode(memory, src_mask, ys, make_subsequent_mask(ys.size(1)))"), "device",
            gives_away="partly"),
    Mistake(NB, "greedy_decode", "no feedback: the start token decoded at every step",
            _greedy(decode="out = model.decode(memory, src_mask, ys[:, :1], make_subsequent_mask(1, device=src.device))"),
            "greedy-no-feedback"),
    Mistake(NB, "greedy_decode", "only the newest token decoded at each step",
            _greedy(decode="out = model.decode(memory, src_mask, ys[:, -1:], make_subsequent_mask(1, device=src.device))"),
            "wrong-values"),
    Mistake(NB, "greedy_decode", "argmax without keepdim",
            _greedy(pick="next_token = model.generator(out[:, -1]).argmax(dim=-1)"), "runtime-error",
            helpful="partly"),  # the line is torch.no_grad's wrapper's until harness unwraps decorated units
    Mistake(NB, "greedy_decode", "no generator: the argmax of the decoder's output",
            _greedy(pick="next_token = out[:, -1].argmax(dim=-1, keepdim=True)"), "wrong-values"),
    Mistake(NB, "greedy_decode", "the source encoded inside the loop",
            _greedy(memory="memory = None",
                    decode="out = model.decode(model.encode(src, src_mask), src_mask, ys, "
                           "make_subsequent_mask(ys.size(1), device=src.device))"), "property-violated"),
    Mistake(NB, "greedy_decode", "stops as soon as any row has produced eos_idx",
            _greedy(stop="if eos_idx is not None and (ys == eos_idx).any():"), "shape"),
    Mistake(NB, "greedy_decode", "no look-ahead mask passed to decode",
            _greedy(decode="out = model.decode(memory, src_mask, ys, None)"), "property-violated"),
]

