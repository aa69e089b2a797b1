"""The examples and the benchmark run as a user runs them, and print what the lectures print.

Each script runs in a subprocess from the repository root. Expected numbers come from the lectures
(values loaded explicitly there, and values drawn after torch.manual_seed(0): minigrad's generator
is PyTorch's, so ours must equal them) or from maths (gradient accumulation is exact up to fp32
rounding; GradScaler multiplies the loss by 2**16).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(script, *args, timeout=120):
    env = dict(os.environ, PYTHONIOENCODING="utf-8", MPLBACKEND="Agg")
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, os.path.join(ROOT, script), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=timeout)
    assert proc.returncode == 0, f"{script} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def value_after(out, label):
    """The text after ``label`` on its line."""
    m = re.search(re.escape(label) + r"\s*(.+)", out)
    assert m, f"{label!r} not printed:\n{out}"
    return m.group(1).strip()


def floats(text):
    return [float(v) for v in re.findall(r"-?\d+\.\d+(?:e[-+]?\d+)?", text)]


# ------------------------------------------------------------------ lecture ports, no autocast
def test_autograd_basics_prints_lecture_gradients():
    out = run("examples/autograd_basics.py")
    assert value_after(out, "梯度 dz/dx =") == "[1.0, 2.0]"
    assert value_after(out, "梯度 dz/dw =") == "[2.0, 3.0]"
    assert value_after(out, "梯度 dz/db =") == "2.0"


def test_forget_zero_grad_prints_lecture_numbers():
    out = run("examples/forget_zero_grad.py")
    assert value_after(out, "初始权重 w =") == "-0.0075"
    assert value_after(out, "第一次反向传播后梯度 =") == "-4.015"
    assert value_after(out, "第一次更新后权重 w =") == "0.394"
    assert value_after(out, "第二次反向传播后梯度（累积后） =") == "-7.227"
    assert value_after(out, "第二次更新后权重 w =") == "1.1167"


def test_training_loop_runs_two_steps_and_the_loss_falls():
    out = run("examples/training_loop.py")
    # the lecture's printed output, drawn after torch.manual_seed(0)
    assert value_after(out, "训练前模型第一层权重前两个值:") == "[0.1431, 0.1272]"
    assert value_after(out, "第一步训练后损失:") == "1.0386"
    assert value_after(out, "第一步后模型第一层权重前两个值:") == "[0.1427, 0.1272]"
    assert value_after(out, "第二步训练后损失:") == "1.0229"
    before = floats(value_after(out, "训练前模型第一层权重前两个值:"))
    after = floats(value_after(out, "第一步后模型第一层权重前两个值:"))
    loss1 = float(value_after(out, "第一步训练后损失:"))
    loss2 = float(value_after(out, "第二步训练后损失:"))
    assert len(before) == len(after) == 2
    # Three classes: an untrained model's cross-entropy is near ln 3 = 1.0986.
    assert 0.5 < loss1 < 2.0
    # A small SGD step (lr 0.01) on the same batch lowers the loss; weights move by little.
    assert loss2 < loss1
    assert max(abs(a - b) for a, b in zip(before, after)) < 0.01


def test_grad_accumulation_equals_one_big_batch():
    out = run("examples/grad_accumulation.py")
    assert "参数已更新一次。" in out
    assert 0.3 < float(value_after(out, "模拟的等效大批次损失约为:")) < 3.0
    weight_diff = float(value_after(out, "max |accumulated - full batch| weight grad:"))
    bias_diff = float(value_after(out, "max |accumulated - full batch| bias grad:"))
    assert weight_diff < 1e-6 and bias_diff < 1e-6  # equal up to fp32 rounding


# ------------------------------------------------------------------ lecture ports with amp_emu
def test_amp_autocast_gradscaler_listing():
    out = run("examples/amp_autocast_gradscaler.py")
    assert value_after(out, "autocast 关闭时输出 dtype:") == "minigrad.float32"
    assert value_after(out, "autocast 开启时输出 dtype:") == "minigrad.bfloat16"
    diff = float(value_after(out, "两者最大绝对差:"))
    assert 0 < diff < 0.05  # bf16 has 8 significant bits: small but not zero
    loss = float(value_after(out, "原始损失:"))
    scaled = float(value_after(out, "缩放后损失:"))
    assert abs(scaled - 65536 * loss) <= 65536 * 0.00005 + 1e-3  # loss printed to 4 decimals
    assert value_after(out, "当前缩放因子:") == "65536.0"
    # the lecture's printed numbers, drawn after torch.manual_seed(0)
    assert (value_after(out, "两者最大绝对差:"), value_after(out, "原始损失:"),
            value_after(out, "缩放后损失:")) == ("0.001581", "1.0386", "68068.1328")


def test_bf16_vs_fp16_underflow_example():
    out = run("examples/bf16_vs_fp16_underflow.py")
    rows = {}
    for line in out.splitlines():
        m = re.search(r"nonzero\s+(\d+)/(\d+)\s+max rel err\s+(\S+)", line)
        if m:
            rows[line.split(" weight.grad")[0].strip()] = (int(m.group(1)), int(m.group(2)),
                                                           float(m.group(3)))
    fp16 = next(v for k, v in rows.items() if k.startswith("fp16") and "no scaler" in k)
    scaled = next(v for k, v in rows.items() if "GradScaler" in k)
    bf16 = next(v for k, v in rows.items() if k.startswith("bf16"))
    assert fp16[0] == 0                                   # 1e-8 underflows to 0 in fp16
    assert scaled[0] == scaled[1] and scaled[2] < 1e-2    # recovered by scaling by 2**16
    assert bf16[0] == bf16[1] and bf16[2] < 2e-2          # bf16 keeps it (8 significant bits)


# ------------------------------------------------------------------ the main job and the bench
def _table_rows(out):
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 8 and parts[0] in ("minigrad", "torch") and parts[2].endswith("%"):
            rows[parts[0], parts[1]] = parts
    return rows


def test_train_digits_numerics_shows_underflow_and_the_scale_fixing_it():
    out = run("examples/train_digits.py", "--precision", "fp16", "--epochs", "1",
              "--no-progress", "--numerics")
    assert "by amp_emu.numerics.NumericsMonitor" in out
    lines = [ln.split() for ln in out.splitlines() if ln.strip().startswith(("1 (no", "65536"))]
    assert len(lines) == 2
    plain, scaled = lines
    # without scaling some fp16 gradients of the MLP are subnormal or zero; 65536 lifts them all
    assert int(plain[5]) + int(plain[4]) > 0
    assert int(scaled[2]) + int(scaled[3]) == 0
    assert plain[3] == scaled[1]                    # the same number of gradient values


def test_train_digits_all_precisions_short_run_and_plot(tmp_path):
    png = tmp_path / "loss.png"
    out = run("examples/train_digits.py", "--epochs", "2", "--no-progress", "--plot", str(png))
    assert "test acc" in out and "loss scale" in out and "skipped" in out
    rows = _table_rows(out)
    assert set(rows) == {("minigrad", "fp32"), ("minigrad", "bf16"), ("minigrad", "fp16")}
    for parts in rows.values():
        assert int(parts[6]) == 2 * 21  # 1347 training images: 21 full batches of 64, 2 epochs
        assert float(parts[2].rstrip("%")) > 50  # two epochs already learn most digits
    assert float(rows["minigrad", "fp16"][4]) > 0   # a final loss scale is reported
    assert png.exists() and png.stat().st_size > 10_000


def test_train_digits_fp32_reaches_95_percent_and_matches_torch():
    out = run("examples/train_digits.py", "--precision", "fp32", "--compare-torch",
              "--no-progress")
    rows = _table_rows(out)
    for fw in ("minigrad", "torch"):
        assert float(rows[fw, "fp32"][2].rstrip("%")) >= 95.0
    diff, first, first50 = floats(value_after(out, "  fp32:"))[:3]
    # the same weights and batches: per-step losses agree to fp32 rounding at first; BLAS's
    # summation order differs, and 420 steps of Adam amplify it (measured: 1.2e-3 at step 396)
    assert first < 1e-6 and first50 < 1e-5 and diff < 1e-2


def test_bench_quick_prints_every_figure():
    """bench/run.py's big-MLP and memory rows (minigrad and the NumPy floor, --quick): the
    fp32, bf16-autocast and fp16-autocast+GradScaler steps, their targets and the memory
    figures are printed, and the timed runs reproduce the reference runs (exit 0)."""
    out = run("bench/run.py", "--quick", "--only", "big_mlp,memory", "--steps", "10",
              "--frameworks", "minigrad,floor")
    for label in ("[3] MLP 784-512-512-10", "fp32 step", "bf16 autocast step",
                  "fp16 autocast + GradScaler", "bf16 autocast <= 1.2x our fp32",
                  "[7] memory", "peak RSS added <= 1.1x the floor", "minigrad stays flat"):
        assert label in out, out
    assert "n/a" not in out and "note:" not in out and "NUMERICS" not in out, out


def test_train_digits_cnn_matches_torch_over_100_steps():
    """The CNN example (Conv2d without bias, BatchNorm2d, MaxPool2d; dropout off for the
    comparison; its defaults: widths 24 48, Adam lr 3e-3, cosine schedule) from the same
    weights and batches as PyTorch: per-step fp32 losses agree to rounding over the first 100
    steps."""
    out = run("examples/train_digits_cnn.py", "--precision", "fp32", "--compare-torch",
              "--epochs", "5", "--no-progress")
    assert "CNN conv24-conv48-linear" in out and "dropout 0" in out and "cosine schedule" in out
    rows = _table_rows(out)
    assert int(rows["minigrad", "fp32"][6]) == int(rows["torch", "fp32"][6]) == 105
    diff, first, first50, first100 = floats(value_after(out, "  fp32:"))[:4]
    # rounding-level throughout. With the conv biases (pure rounding noise before BatchNorm,
    # which Adam amplifies) it was 5.8e-5 at step 104; without them, measured: 3.7e-7 over
    # the first 50 steps, 1.0e-6 over the first 100.
    assert first < 1e-6 and first50 < 1e-5 and first100 < 1e-5 and diff < 1e-5


def test_train_char_gpt_matches_torch_and_samples():
    """The char GPT example (Embedding, causal sdpa, LayerNorm, GELU, tied head, AdamW groups,
    warmup+cosine LambdaLR, clipping) from the same weights and batches as PyTorch: fp32 losses
    agree to rounding; it reports the unigram baseline and prints a sample."""
    out = run("examples/train_char_gpt.py", "--precision", "fp32", "--compare-torch",
              "--steps", "12", "--chars", "30000", "--sample", "10", "--no-progress")
    assert "unigram baseline" in out and "sample:" in out
    diff = float(out.split("fp32 expected < 1e-5): ")[1].split()[0])
    assert diff < 1e-5


# ------------------------------------------------------------------ gradient accumulation, profiling
def test_accumulation_pitfalls_prints_each_with_numbers():
    out = run("examples/accumulation_pitfalls.py", "--accum", "4")
    rows = {line[:52].strip(): line[52:].split() for line in out.splitlines()
            if line.endswith((" yes", " NO", " no*"))}
    assert len(rows) == 11, out
    # maths: without / N the gradient is N = 4 times the big batch's
    assert float(rows["missing loss / N: |grad| / |big-batch grad|"][1]) == 4.0
    # ExponentialLR(0.9) from lr 0.1 after 5 steps: 0.9**5 right, 0.9**20 stepped per micro-batch
    lr_row = rows["scheduler per micro-batch: lr after 5 steps"]
    assert float(lr_row[0]) == round(0.1 * 0.9 ** 5, 5) and float(lr_row[3]) == round(0.1 * 0.9 ** 20, 5)
    assert float(rows["BatchNorm running_mean: max rel diff"][-6]) > 0.01
    assert [r[-1] for r in rows.values()].count("no*") == 1  # one dropout layer: same masks
    assert all(r[-1] in ("yes", "no*") for r in rows.values()), out


def test_train_digits_accum_checkpoint_profile_on_cuda(tmp_path):
    """--accum 4 --checkpoint --profile DIR --device cuda on a 1-epoch fp16 run, against the plain
    run: the same training (losses agree to fp16 rounding), the "saved" bytes the hand count
    gives, a profile table and a Chrome trace that parses."""
    import json
    plain = _table_rows(run("examples/train_digits.py", "--precision", "fp16", "--epochs", "1",
                            "--no-progress"))["minigrad", "fp16"]
    out = run("examples/train_digits.py", "--precision", "fp16", "--epochs", "1", "--no-progress",
              "--accum", "4", "--checkpoint", "--profile", str(tmp_path), "--device", "cuda")
    rows = _table_rows(out)["minigrad", "fp16"]
    assert "4 micro-batches of 16 per step, hidden blocks checkpointed" in out
    assert int(rows[6]) == int(plain[6]) == 21
    assert abs(float(rows[3]) - float(plain[3])) < 2e-3
    # Kept for backward, fp16 autocast, MLP 64-128-10. Plain, batch 64: the input cast to fp16
    # (64*64*2), the ReLU output (64*128*2), W2 cast (128*10*2), log_softmax's output (64*10*4),
    # the targets (64*8): 30208 B. Checkpointed, micro-batch 16: the block's fp32 input
    # (16*64*4), the block's output (16*128*2), W2 cast, log_softmax's output, targets: 11520 B.
    assert plain[8] == f"{30208 / 1024:.1f}KiB" and rows[8] == f"{11520 / 1024:.1f}KiB"
    # peak (minigrad.memory.track over the second step, cpu and cuda): at least the fp32 weights
    # and Adam's two moments (3 copies of 9610 floats) and what the graph keeps for backward
    for r, saved in ((plain, 30208), (rows, 11520)):
        assert r[9].endswith("KiB") and float(r[9][:-3]) * 1024 > 3 * 4 * 9610 + saved
    assert "profile, minigrad fp16, steps 3-5" in out
    # the table's top 12 by self time vary with the machine's load (addmm may fall below 12th);
    # which ops ran is read from the trace below
    assert "aten::" in out and "Self CPU time total" in out
    traces = list(tmp_path.glob("train_digits_fp16.*.pt.trace.json"))
    assert len(traces) == 1
    names = {e.get("name") for e in json.loads(traces[0].read_text())["traceEvents"]}
    assert {"ProfilerStep#2", "ProfilerStep#4", "aten::addmm"} <= names


def kib(token):
    """A size token of the examples' tables (``12.3KiB``, ``1.50MiB``) in KiB."""
    return float(token[:-3]) * (1024 if token.endswith("MiB") else 1)


def test_profile_step_quick_shows_time_bytes_and_autocast(tmp_path):
    import json
    out = run("examples/profile_step.py", "--quick", "--trace-dir", str(tmp_path), "--rows", "3")
    summary = {}
    for line in out.splitlines():
        m = re.match(r"(fp32|bf16|fp16)( \+ checkpoint)?\s+(\d+\.\d)\s", line)
        if m:
            summary[m.group(1) + (m.group(2) or "")] = line[20:].split()
    assert len(summary) == 6, out
    for p in ("fp32", "bf16", "fp16"):
        plain, ckpt = summary[p], summary[p + " + checkpoint"]
        # checkpointing keeps only each block's input for backward: far fewer saved bytes and a
        # lower peak
        assert kib(ckpt[4]) < kib(plain[4]) / 3 and kib(ckpt[5]) < kib(plain[5])
    # autocast's policy, from the recorded input types: matmuls in the low precision, log_softmax
    # in fp32 (PyTorch's autocast lists)
    assert re.search(r"fp16\s+aten::addmm\s+\(c10::Half, c10::Half, c10::Half\)", out)
    assert re.search(r"bf16\s+aten::addmm\s+\(c10::BFloat16, c10::BFloat16, c10::BFloat16\)", out)
    assert re.search(r"fp16\s+aten::_log_softmax\s+\(float,", out)
    assert re.search(r"fp32\s+aten::addmm\s+\(float, float, float\)", out)
    assert out.count("by self CPU time") == 6 and "Self CPU time total" in out
    traces = sorted(tmp_path.glob("profile_step_*.json"))
    assert len(traces) == 6
    events = json.loads(traces[0].read_text())["traceEvents"]
    assert {"forward", "backward", "optimizer"} <= {e.get("name") for e in events}


def test_draw_graph_writes_the_lecture_and_checkpoint_graphs(tmp_path):
    out = run("examples/draw_graph.py", "--out", str(tmp_path))
    lecture = (tmp_path / "lecture.dot").read_text()
    for name in ("SumBackward0", "AddBackward0", "MulBackward0", 'label="w\\l(2) float32'):
        assert name in lecture
    ckpt = (tmp_path / "checkpoint.dot").read_text()
    assert ckpt.count("packed by hooks") == 5 and "GeluBackward0" in ckpt
    assert "--- lecture: 8 edges" in out


def test_fp8_delayed_scaling_gradients_stop_flushing_once_the_scales_move():
    out = run("examples/fp8_delayed_scaling.py")
    rows = {int(m.group(1)): (float(m.group(2)), int(m.group(3))) for m in re.finditer(
        r"step\s+(\d+)\s+loss ([\d.]+)\s+e5m2 gradients flushed to 0:\s+(\d+)", out)}
    assert sorted(rows) == [1, 2, 3, 10, 40]
    assert rows[1][1] > 0 and rows[2][1] > 0          # scale 1: the e5m2 gradients flush
    assert rows[3][1] == rows[10][1] == rows[40][1] == 0
    assert rows[40][0] < 0.1 * rows[1][0]             # and the model learns
