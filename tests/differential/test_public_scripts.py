"""Public PyTorch example code, run with only its import lines renamed, against PyTorch.

The model and training code below is quoted verbatim from pytorch/examples
(https://github.com/pytorch/examples, commit 77f55b9), "Copyright (c) 2017, Pytorch contributors",
BSD 3-Clause License; each block names its file. A block is executed twice: as written under
``torch``, and with ``import torch...`` / ``from torch... import`` rewritten to minigrad's names
(nothing else changed), from the same initial weights (PyTorch's ``state_dict`` loaded), for 3
optimizer steps on the same data; the losses must agree to 1e-5 relative (fp32).
"""
from __future__ import annotations

import re
import types

import numpy as np
import torch

import minigrad as mg

_IMPORTS = [
    (re.compile(r"^(\s*)import torch(\s*)$", re.M), r"\1import minigrad as torch\2"),
    (re.compile(r"^(\s*)import torch\.([\w.]+) as (\w+)", re.M), r"\1import minigrad.\2 as \3"),
    (re.compile(r"^(\s*)from torch(\.[\w.]+)? import ", re.M), r"\1from minigrad\2 import "),
]


def _load(src: str, lib, **env) -> dict:
    """Execute ``src`` for ``lib`` (imports renamed for minigrad) in a namespace holding
    ``env``; returns the namespace."""
    if lib is mg:
        for rx, rep in _IMPORTS:
            src = rx.sub(rep, src)
        assert "import torch" not in src and "from torch" not in src
    ns = dict(env)
    exec(compile(src, "<pytorch/examples>", "exec"), ns)
    return ns


def _sync(model, lib, init):
    if lib is torch:
        init.update({k: v.detach().clone() for k, v in model.state_dict().items()})
    else:
        model.load_state_dict(init)


def _close(lt, lm, rtol=1e-5):
    assert len(lt) == len(lm) == 3
    for a, b in zip(lt, lm):
        assert abs(a - b) <= rtol * abs(a), (lt, lm)


# ------------------------------------------------------------ super_resolution/model.py
SUPER_RESOLUTION = '''
import torch
import torch.nn as nn
import torch.nn.init as init


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super(Net, self).__init__()

        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 64, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(64, 64, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(64, 32, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(32, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)

        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        x = self.pixel_shuffle(self.conv4(x))
        return x

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv2.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv3.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv4.weight)
'''


def test_super_resolution_net_adam_mse():
    r = np.random.default_rng(0)
    x = r.random((1, 1, 4, 4), dtype=np.float32)
    y = r.random((1, 1, 8, 8), dtype=np.float32)
    init, losses = {}, {}
    for lib in (torch, mg):
        lib.manual_seed(123)
        ns = _load(SUPER_RESOLUTION, lib)
        model = ns["Net"](upscale_factor=2)
        _sync(model, lib, init)
        # super_resolution/main.py's criterion, optimizer and step
        criterion = lib.nn.MSELoss()
        optimizer = lib.optim.Adam(model.parameters(), lr=0.01)
        out = []
        for _ in range(3):
            optimizer.zero_grad()
            loss = criterion(model(lib.tensor(x)), lib.tensor(y))
            out.append(loss.item())
            loss.backward()
            optimizer.step()
        losses[lib] = out
    _close(losses[torch], losses[mg])


# ------------------------------------------------------------ reinforcement_learning/reinforce.py
REINFORCE = '''
import numpy as np
from collections import deque
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(4, 128)
        self.dropout = nn.Dropout(p=0.6)
        self.affine2 = nn.Linear(128, 2)

        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode():
    R = 0
    policy_loss = []
    returns = deque()
    for r in policy.rewards[::-1]:
        R = r + args.gamma * R
        returns.appendleft(R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
'''


def test_reinforce_policy_categorical_dropout():
    """Dropout masks and Categorical samples come from each framework's generator after the
    same seed (minigrad's is PyTorch's), so the sampled actions and the losses agree."""
    states = np.random.default_rng(1).normal(size=(3, 6, 4)).astype(np.float32)
    init, losses, actions = {}, {}, {}
    for lib in (torch, mg):
        ns = _load(REINFORCE, lib, args=types.SimpleNamespace(gamma=0.99),
                   eps=np.finfo(np.float32).eps.item())
        lib.manual_seed(543)
        ns["policy"] = policy = ns["Policy"]()
        _sync(policy, lib, init)
        ns["optimizer"] = lib.optim.Adam(policy.parameters(), lr=1e-2)
        out, acts = [], []
        orig = lib.Tensor.backward

        def backward(self, *a, **k):
            out.append(self.item())
            return orig(self, *a, **k)
        lib.Tensor.backward = backward
        try:
            for episode in states:            # reinforce.py's main loop, with fixed states
                for t, state in enumerate(episode):
                    acts.append(ns["select_action"](state))
                    policy.rewards.append(1.0 + 0.5 * t)
                ns["finish_episode"]()
        finally:
            lib.Tensor.backward = orig
        losses[lib], actions[lib] = out, acts
    assert actions[mg] == actions[torch]
    _close(losses[torch], losses[mg])


# ------------------------------------------------------------ mnist_rnn/main.py
MNIST_RNN = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.rnn = nn.LSTM(input_size=28, hidden_size=64, batch_first=True)
        self.batchnorm = nn.BatchNorm1d(64)
        self.dropout1 = nn.Dropout2d(0.25)
        self.dropout2 = nn.Dropout2d(0.5)
        self.fc1 = nn.Linear(64, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, input):
        # Shape of input is (batch_size,1, 28, 28)
        # converting shape of input to (batch_size, 28, 28)
        # as required by RNN when batch_first is set True
        input = input.reshape(-1, 28, 28)
        output, hidden = self.rnn(input)

        # RNN output shape is (seq_len, batch, input_size)
        # Get last output of RNN
        output = output[:, -1, :]
        output = self.batchnorm(output)
        output = self.dropout1(output)
        output = self.fc1(output)
        output = F.relu(output)
        output = self.dropout2(output)
        output = self.fc2(output)
        output = F.log_softmax(output, dim=1)
        return output


def train(args, model, device, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                       100. * batch_idx / len(train_loader), loss.item()))
            if args.dry_run:
                break
'''


def test_mnist_rnn_lstm_batchnorm_dropout2d_adadelta(capsys):
    """The script's own ``train`` over a 3-batch loader (Dropout2d on 2-d input warns in both)."""
    import warnings
    r = np.random.default_rng(2)
    x = r.random((6, 1, 28, 28), dtype=np.float32)
    y = r.integers(0, 10, 6)
    init, losses = {}, {}
    args = types.SimpleNamespace(log_interval=1, dry_run=False)
    for lib in (torch, mg):
        ns = _load(MNIST_RNN, lib)
        lib.manual_seed(1)
        model = ns["Net"]()
        _sync(model, lib, init)
        optimizer = lib.optim.Adadelta(model.parameters(), lr=0.1)
        loader = lib.utils.data.DataLoader(
            lib.utils.data.TensorDataset(lib.tensor(x), lib.tensor(y)), batch_size=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ns["train"](args, model, "cpu", loader, optimizer, 1)
        losses[lib] = [float(s.split("Loss: ")[1]) for s in capsys.readouterr().out.splitlines()]
    _close(losses[torch], losses[mg], rtol=2e-6)
