"""Gradient accumulation's pitfalls, with numbers.

Lecture: "梯度累积的三个坑" (and the common-mistakes table's missing ``loss / accum_steps``).
``examples/grad_accumulation.py`` shows the recipe working: N micro-batches, each loss divided by
N, sum to the gradient of one batch N times as large. This script shows where "equivalent to the
big batch" stops being true, each next to the right way on the same data and weights:

1. BatchNorm updates its running statistics once per micro-batch, from the micro-batch's own
   mean and variance: after N micro-batches running_mean / running_var differ from one update
   with the big batch's statistics (and the forward normalises with micro-batch statistics, so
   even the gradient differs). The lecture's fix: LayerNorm / GroupNorm, or synchronised BN.
2. ``scheduler.step()`` belongs beside ``optimizer.step()``: called once per micro-batch, the
   learning rate decays N times faster (ExponentialLR(gamma) reaches gamma**(K N) after K
   steps instead of gamma**K).
3. Dropout masks are not shared: the big batch draws one mask, accumulation N independent masks
   (same keep rate, other positions), so the gradient differs from the big batch's by far more
   than rounding; usually harmless, a noisier loss curve on small data. A detail the numbers
   show: with a single Dropout layer and one generator, the N micro-batch draws consume the
   random stream exactly as the big batch's one draw does, so the masks come out the same
   numbers; with two layers the draws interleave (layer 1, layer 2, layer 1...) and they differ.
4. Forgetting ``loss / N``: the accumulated gradient is N times too large (so is the effective
   learning rate with SGD; momentum and schedules go off too).

Every figure is printed; the last column says whether the lecture's claim shows up here.

Run: python examples/accumulation_pitfalls.py [--accum 4] [--micro 8]
"""
from __future__ import annotations

import argparse
import warnings

import numpy as np

import minigrad as mg
import minigrad.nn as nn
import optim


def accumulate(model, x, y, n_micro, divide=True, on_micro_step=None):
    """Forward/backward over ``n_micro`` equal slices of (x, y), summing gradients in ``.grad``.

    ``divide=False`` is pitfall 4 (no ``loss / N``); ``on_micro_step()`` runs after each
    micro-batch's backward (pitfall 2 puts ``scheduler.step()`` there). Returns the gradients
    as NumPy arrays."""
    criterion = nn.CrossEntropyLoss()
    model.zero_grad(set_to_none=True)
    size = len(x) // n_micro
    for k in range(n_micro):
        loss = criterion(model(x[k * size:(k + 1) * size]), y[k * size:(k + 1) * size])
        (loss / n_micro if divide else loss).backward()
        if on_micro_step is not None:
            on_micro_step()
    return [p.grad.numpy().copy() for p in model.parameters()]


def copy_of(model_fn, state):
    model = model_fn()
    model.load_state_dict(state)
    return model


def max_rel_diff(a, b):
    """max |a - b| / max |b| over a list of arrays."""
    return max(float(np.abs(u - v).max()) for u, v in zip(a, b)) / max(
        float(np.abs(v).max()) for v in b)


def grad_norm(grads):
    return float(np.sqrt(sum(float((g.astype(np.float64) ** 2).sum()) for g in grads)))


def verdict(ok):
    return "yes" if ok else "NO"


# ------------------------------------------------------------------ the four pitfalls
def missing_division(x, y, n_micro, features):
    """Pitfall 4: the ratio of the undivided accumulated gradient to the big batch's."""
    mg.manual_seed(1)
    def mlp():
        return nn.Sequential(nn.Linear(features, 16), nn.ReLU(), nn.Linear(16, 3))

    state = mlp().state_dict()
    big = accumulate(copy_of(mlp, state), x, y, 1)
    right = accumulate(copy_of(mlp, state), x, y, n_micro)
    wrong = accumulate(copy_of(mlp, state), x, y, n_micro, divide=False)
    ratio = grad_norm(wrong) / grad_norm(big)
    return [("missing loss / N: |grad| / |big-batch grad|",
             f"{grad_norm(right) / grad_norm(big):.4f}", f"{ratio:.4f}",
             f"x{ratio:.2f} = N", verdict(abs(ratio - n_micro) < 1e-3 * n_micro)),
            ("  (with loss / N: max rel diff to big batch)", f"{max_rel_diff(right, big):.1e}",
             "", "fp32 rounding", verdict(max_rel_diff(right, big) < 1e-5))]


def scheduler_per_micro_batch(x, y, n_micro, features, steps=5, lr=0.1, gamma=0.9):
    """Pitfall 2: lr after ``steps`` accumulated steps, scheduler with the optimizer vs per
    micro-batch (both really train)."""
    lrs = []
    for per_micro in (False, True):
        mg.manual_seed(1)
        model = nn.Linear(features, 3)
        opt = optim.SGD(model.parameters(), lr=lr)
        sched = optim.lr_scheduler.ExponentialLR(opt, gamma=gamma)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(steps):
                accumulate(model, x, y, n_micro, on_micro_step=sched.step if per_micro else None)
                opt.step()
                if not per_micro:
                    sched.step()
        lrs.append(sched.get_last_lr()[0])
    # the per-micro-batch run's first scheduler.step() comes before any optimizer.step()
    warned = any("lr_scheduler.step()` before `optimizer.step()`" in str(w.message)
                 for w in caught)
    right, wrong = lrs
    exp = np.log(wrong / lr) / np.log(gamma)  # the power of gamma reached
    return [(f"scheduler per micro-batch: lr after {steps} steps",
             f"{right:.4g} = {gamma}^{steps}", f"{wrong:.4g} = {gamma}^{exp:.0f}",
             f"decays {exp / steps:.0f}x faster",
             verdict(np.isclose(right, lr * gamma ** steps) and round(exp) == steps * n_micro)),
            ("  PyTorch's 'scheduler before optimizer' warning", "no", "yes" if warned else "no",
             "first micro-batch", verdict(warned))]


def batchnorm_statistics(x, y, n_micro, features):
    """Pitfall 1: running statistics (and gradients) of BatchNorm1d, big batch vs micro."""
    mg.manual_seed(1)
    def net():
        return nn.Sequential(nn.Linear(features, 8), nn.BatchNorm1d(8), nn.ReLU(),
                             nn.Linear(8, 3))

    state = net().state_dict()
    big_model, acc_model = copy_of(net, state), copy_of(net, state)
    big = accumulate(big_model, x, y, 1)
    acc = accumulate(acc_model, x, y, n_micro)
    bn_big, bn_acc = big_model[1], acc_model[1]
    mean_diff = max_rel_diff([bn_acc.running_mean.numpy()], [bn_big.running_mean.numpy()])
    var_diff = max_rel_diff([bn_acc.running_var.numpy()], [bn_big.running_var.numpy()])
    grad_diff = max_rel_diff(acc, big)
    updates = (f"{int(bn_acc.num_batches_tracked.item())} updates, not "
               f"{int(bn_big.num_batches_tracked.item())}")
    return [("BatchNorm running_mean: max rel diff", "0 (one update)",
             f"{mean_diff:.3f}", updates, verdict(mean_diff > 1e-2)),
            ("BatchNorm running_var: max rel diff", "0", f"{var_diff:.3f}", "",
             verdict(var_diff > 1e-2)),
            ("BatchNorm gradient: max rel diff to big batch", "0", f"{grad_diff:.3f}",
             "micro-batch statistics", verdict(grad_diff > 1e-3))]


def dropout_masks(x, y, n_micro, features, layers, p=0.5):
    """Pitfall 3: the masks drawn per micro-batch against the big batch's, from the same
    generator state, with ``layers`` Dropout layers (each after a Linear-ReLU of width 32)."""
    def net():
        mods, width = [], features
        for _ in range(layers):
            mods += [nn.Linear(width, 32), nn.ReLU(), nn.Dropout(p)]
            width = 32
        return nn.Sequential(*mods, nn.Linear(width, 3))

    mg.manual_seed(1)
    state = net().state_dict()
    masks, grads = {}, {}
    for name, n in (("big", 1), ("acc", n_micro)):
        model = copy_of(net, state)
        for i in range(layers):
            drop, relu = model[3 * i + 2], model[3 * i + 1]
            kept = []   # per layer: (mask, alive) of each forward call
            masks[name, i] = kept
            relu_out = {}
            relu.register_forward_hook(lambda m, a, out, r=relu_out: r.update(out=out))
            drop.register_forward_hook(
                lambda m, a, out, r=relu_out, k=kept: k.append(
                    (out.detach().numpy() != 0, r["out"].detach().numpy() != 0)))
        mg.manual_seed(2)  # the same generator state for both runs
        grads[name] = accumulate(model, x, y, n)
    differ, keep = [], []
    for i in range(layers):
        big_mask, big_alive = masks["big", i][0]
        acc_mask = np.concatenate([m for m, _ in masks["acc", i]])
        acc_alive = np.concatenate([a for _, a in masks["acc", i]])
        keep.append((float(big_mask[big_alive].mean()), float(acc_mask[acc_alive].mean())))
        both = big_alive & acc_alive   # where a zero means "dropped" in both runs
        differ.append(float((big_mask != acc_mask)[both].mean()))
    grad_diff = max_rel_diff(grads["acc"], grads["big"])
    label = f"dropout p={p}, {layers} layer{'s' if layers > 1 else ''}"
    if layers == 1:
        # one generator, nothing else drawing in between: N draws of m rows are the big batch's
        # one draw of N m rows, cut into N pieces. The masks are still independent per
        # micro-batch; they just happen to be the same numbers as the big batch's.
        return [(f"{label}: mask positions that differ", "", f"{differ[0]:.3f}",
                 "same stream, cut in N", "no*" if differ[0] == 0 and grad_diff < 1e-5 else "yes")]
    return [(f"{label}: kept fraction (big / micro)", f"{keep[-1][0]:.3f}", f"{keep[-1][1]:.3f}",
             "same rate", verdict(abs(keep[-1][0] - keep[-1][1]) < 0.1)),
            (f"{label}: mask positions that differ", "",
             "/".join(f"{d:.2f}" for d in differ), "draws interleave", verdict(max(differ) > 0.2)),
            (f"{label}: grad max rel diff to big", "", f"{grad_diff:.3f}", "not rounding",
             verdict(grad_diff > 1e-3))]


def main(argv=None):
    """Print the table; returns its rows."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--accum", type=int, default=4, help="micro-batches per step (N)")
    p.add_argument("--micro", type=int, default=8, help="samples per micro-batch")
    p.add_argument("--features", type=int, default=10)
    args = p.parse_args(argv)
    mg.manual_seed(0)
    n = args.accum * args.micro
    x = mg.randn(n, args.features) * 2 + 1        # a shifted, spread input: BN statistics matter
    y = mg.randint(0, 3, (n,))
    rows = (missing_division(x, y, args.accum, args.features)
            + scheduler_per_micro_batch(x, y, args.accum, args.features)
            + batchnorm_statistics(x, y, args.accum, args.features)
            + dropout_masks(x, y, args.accum, args.features, layers=1)
            + dropout_masks(x, y, args.accum, args.features, layers=2))
    print(f"gradient accumulation pitfalls: N = {args.accum} micro-batches of {args.micro} "
          f"(big batch {n}), {args.features} features, 3 classes")
    head = f"{'':<52} {'right way / big':>16} {'pitfall':>16}  {'':<24} claim holds"
    print(head)
    print("-" * len(head))
    for what, right, wrong, note, ok in rows:
        print(f"{what:<52} {right:>16} {wrong:>16}  {note:<24} {ok}")
    if any(ok == "no*" for *_, ok in rows):
        print("* one Dropout layer and one generator: the N micro-batch draws consume the random "
              "stream as the big batch's one draw does, so the masks are the same numbers (PyTorch "
              "CPU's too); with more layers (or anything else drawing in between) they are not")
    return rows


if __name__ == "__main__":
    main()
