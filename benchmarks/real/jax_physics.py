#!/usr/bin/env python3
"""JAX/XLA program for the real-program benchmark: a DRL-style environment step, jitted.

Two simulations of many environments, each step a small policy MLP (observation -> action)
followed by physics sub-steps, as a reinforcement-learning rollout runs them:
  springs: a hanging 8x8 cloth patch per environment (structural springs between grid
           neighbours, gravity, ground penalty contact), the policy pushing its corners;
  rigid:   16 boxes per environment (quaternion orientation, gravity, penalty contact at the
           8 corners with friction), the policy applying a force to each box.
No scatter and no atomics: neighbour forces come from shifted slices, so XLA's result does
not depend on the order of additions, and native and preloaded runs must agree bit for bit.

Each row: one jitted step per iteration, blocked on, median ms after warm-up (compilation
happens in the warm-up), digest of the final state. Run it with and without XLA's command
buffers (XLA_FLAGS=--xla_gpu_enable_command_buffer= disables them); --tag names the rows.

  jax_physics.py [--platform gpu|cpu] [--quick] [--tag nocmdbuf] [--envs 64] [--steps N] [--cache DIR]
"""
import argparse
import os
import sys

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # same memory behaviour in every mode


def build(jnp, jax, kind, envs):
    key = jax.random.PRNGKey(0 if kind == "springs" else 1)
    k1, k2, k3 = jax.random.split(key, 3)
    if kind == "springs":
        g = 8
        ys, xs = jnp.meshgrid(jnp.arange(g, dtype=jnp.float32), jnp.arange(g, dtype=jnp.float32), indexing="ij")
        grid = jnp.stack([xs * 0.1, 1.0 + 0.0 * xs, ys * 0.1], -1)          # [g, g, 3]
        pos = jnp.broadcast_to(grid, (envs, g, g, 3)) + 0.01 * jax.random.normal(k1, (envs, g, g, 3))
        state = (pos, jnp.zeros_like(pos))
        obs_dim, act_dim = g * g * 3, 4 * 3
    else:
        bodies = 16
        pos = jax.random.uniform(k1, (envs, bodies, 3), minval=0.2, maxval=1.0)
        quat = jax.random.normal(k2, (envs, bodies, 4))
        quat = quat / jnp.linalg.norm(quat, axis=-1, keepdims=True)
        state = (pos, quat, jnp.zeros_like(pos), jnp.zeros_like(pos))
        obs_dim, act_dim = bodies * 7, bodies * 3
    w1 = 0.1 * jax.random.normal(k3, (obs_dim, 64))
    w2 = 0.1 * jax.random.normal(jax.random.fold_in(k3, 1), (64, act_dim))
    return state, (w1, jnp.zeros(64), w2, jnp.zeros(act_dim))


def policy(jnp, params, obs):
    w1, b1, w2, b2 = params
    return jnp.tanh(jnp.tanh(obs @ w1 + b1) @ w2 + b2)


def springs_step(jnp, state, params, substeps=4, dt=2e-3, k=400.0, c=0.5, rest=0.1):
    pos, vel = state
    envs = pos.shape[0]
    act = policy(jnp, params, pos.reshape(envs, -1)).reshape(envs, 4, 3)
    push = jnp.zeros_like(pos)
    push = push.at[:, 0, 0].set(act[:, 0]).at[:, 0, -1].set(act[:, 1])
    push = push.at[:, -1, 0].set(act[:, 2]).at[:, -1, -1].set(act[:, 3])
    for _ in range(substeps):
        force = push * 2.0 + jnp.array([0.0, -9.81, 0.0])
        for axis in (1, 2):  # springs to the next particle along each grid axis
            n = pos.shape[axis]
            a = jnp.take(pos, jnp.arange(1, n), axis=axis)
            b = jnp.take(pos, jnp.arange(0, n - 1), axis=axis)
            va = jnp.take(vel, jnp.arange(1, n), axis=axis)
            vb = jnp.take(vel, jnp.arange(0, n - 1), axis=axis)
            d = a - b
            length = jnp.sqrt(jnp.sum(d * d, -1, keepdims=True) + 1e-12)
            f = (k * (length - rest) + c * jnp.sum((va - vb) * d, -1, keepdims=True) / length) * d / length
            pad_lo = [(0, 0)] * 4
            pad_hi = [(0, 0)] * 4
            pad_lo[axis] = (1, 0)
            pad_hi[axis] = (0, 1)
            force = force + jnp.pad(f, pad_hi) - jnp.pad(f, pad_lo)
        pen = jnp.minimum(pos[..., 1:2], 0.0)
        force = force + jnp.concatenate([-vel[..., :1] * 5.0 * (pen < 0), -2e3 * pen - 10.0 * vel[..., 1:2] * (pen < 0),
                                         -vel[..., 2:] * 5.0 * (pen < 0)], -1)
        vel = vel * 0.999 + dt * force
        pos = pos + dt * vel
    reward = jnp.mean(pos[..., 1], axis=(1, 2))
    return (pos, vel), reward


def quat_rotate(jnp, q, v):  # q [..., 4] (w, x, y, z), v [..., 3]
    w, u = q[..., :1], q[..., 1:]
    t = 2.0 * jnp.cross(u, v)
    return v + w * t + jnp.cross(u, t)


def rigid_step(jnp, state, params, substeps=4, dt=2e-3, half=0.05, mass=1.0, ke=2e3, kd=20.0, mu=0.5):
    pos, quat, vel, omega = state
    envs, bodies = pos.shape[:2]
    act = policy(jnp, params, jnp.concatenate([pos, quat], -1).reshape(envs, -1)).reshape(envs, bodies, 3)
    signs = jnp.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], jnp.float32) * half
    inertia = mass * (2 * half) ** 2 / 6.0
    for _ in range(substeps):
        r = quat_rotate(jnp, quat[:, :, None, :], jnp.broadcast_to(signs, (envs, bodies, 8, 3)))  # corners
        corner = pos[:, :, None, :] + r
        cvel = vel[:, :, None, :] + jnp.cross(omega[:, :, None, :], r)
        depth = jnp.minimum(corner[..., 1], 0.0)
        touching = (depth < 0).astype(pos.dtype)
        fn = (-ke * depth - kd * cvel[..., 1] * touching)[..., None] * jnp.array([0.0, 1.0, 0.0])
        ft = -mu * touching[..., None] * cvel * jnp.array([1.0, 0.0, 1.0]) * 50.0
        fc = fn + ft
        force = jnp.sum(fc, axis=2) + mass * jnp.array([0.0, -9.81, 0.0]) + 3.0 * act
        torque = jnp.sum(jnp.cross(r, fc), axis=2)
        vel = vel + dt * force / mass
        omega = (omega + dt * torque / inertia) * 0.999
        pos = pos + dt * vel
        w, u = quat[..., :1], quat[..., 1:]
        dq = jnp.concatenate([-jnp.sum(u * omega, -1, keepdims=True), w * omega + jnp.cross(omega, u)], -1)
        quat = quat + 0.5 * dt * dq
        quat = quat / jnp.linalg.norm(quat, axis=-1, keepdims=True)
    reward = jnp.mean(pos[..., 1], axis=1)
    return (pos, quat, vel, omega), reward


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--platform", default="gpu")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--tag", default="", help="suffix of the row names, e.g. nocmdbuf")
    ap.add_argument("--envs", type=int, default=64)
    ap.add_argument("--steps", type=int, default=60, help="timed steps per row")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--cache", help="JAX's persistent compilation cache: later processes load the compiled "
                    "step (the same executable) instead of compiling and autotuning it again")
    args = ap.parse_args()
    if args.quick:
        args.steps, args.warmup = 3, 1
    os.environ.setdefault("JAX_PLATFORMS", "cuda" if args.platform == "gpu" else args.platform)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from real_common import digest, report, report_error, time_iterations
    import jax
    import jax.numpy as jnp
    import numpy as np

    if args.cache:
        jax.config.update("jax_compilation_cache_dir", args.cache)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    dev = jax.devices()[0]
    print(f"# jax {jax.__version__}, {dev.platform} {getattr(dev, 'device_kind', '')}, "
          f"XLA_FLAGS={os.environ.get('XLA_FLAGS', '')!r}", file=sys.stderr)
    failed = 0
    for kind, fn in (("springs", springs_step), ("rigid", rigid_step)):
        name = f"jax-{kind}-{args.tag}" if args.tag else f"jax-{kind}"
        try:
            state, params = build(jnp, jax, kind, args.envs)
            step = jax.jit(lambda s, p, fn=fn: fn(jnp, s, p))
            holder = {"s": state, "r": []}

            def one():
                holder["s"], reward = step(holder["s"], params)
                holder["r"].append(reward)
                return reward

            def sync():
                jax.block_until_ready(holder["s"])

            ms, _ = time_iterations(one, sync, args.warmup, args.steps)
            final = [np.asarray(a) for a in holder["s"]] + [np.asarray(jnp.stack(holder["r"]))]
            report(name, "jax", ms, digest(*(a.tobytes() for a in final)), envs=args.envs,
                   height=f"{float(final[0][..., 1].mean()):.5f}")
        except Exception as e:  # noqa: BLE001
            report_error(name, "jax", e)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
