"""Offline gymnasium stand-in: CartPole-v1 (the classic-control equations, float32 state)."""
import math
import numpy as np


class _Spec:
    reward_threshold = 475.0


class CartPole:
    spec = _Spec()

    def __init__(self, render_mode=None):
        self.gravity, self.masscart, self.masspole = 9.8, 1.0, 0.1
        self.total_mass = self.masspole + self.masscart
        self.length = 0.5
        self.polemass_length = self.masspole * self.length
        self.force_mag, self.tau = 10.0, 0.02
        self.theta_threshold_radians = 12 * 2 * math.pi / 360
        self.x_threshold = 2.4
        self.np_random = np.random.default_rng()
        self.state, self.steps = None, 0

    def reset(self, seed=None, options=None):
        if seed is not None:
            self.np_random = np.random.default_rng(seed)
        self.state = self.np_random.uniform(low=-0.05, high=0.05, size=(4,))
        self.steps = 0
        return np.array(self.state, dtype=np.float32), {}

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        ct, st = math.cos(theta), math.sin(theta)
        temp = (force + self.polemass_length * theta_dot ** 2 * st) / self.total_mass
        thetaacc = (self.gravity * st - ct * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * ct ** 2 / self.total_mass))
        xacc = temp - self.polemass_length * thetaacc * ct / self.total_mass
        x, x_dot = x + self.tau * x_dot, x_dot + self.tau * xacc
        theta, theta_dot = theta + self.tau * theta_dot, theta_dot + self.tau * thetaacc
        self.state = (x, x_dot, theta, theta_dot)
        self.steps += 1
        terminated = bool(x < -self.x_threshold or x > self.x_threshold or
                          theta < -self.theta_threshold_radians or
                          theta > self.theta_threshold_radians)
        return np.array(self.state, dtype=np.float32), 1.0, terminated, self.steps >= 500, {}

    def render(self):
        pass


def make(name, render_mode=None):
    assert name == "CartPole-v1", name
    return CartPole(render_mode)
