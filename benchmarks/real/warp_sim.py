#!/usr/bin/env python3
"""NVIDIA Warp (warp.sim) program for the real-program benchmark: DRL-style simulation steps
of many environments, built from the robot models that ship with Warp, set up as Warp's own
examples (warp/examples/sim/example_cartpole.py, example_quadruped.py) set them up.

  warp-cartpole:   256 cart-poles (cartpole.urdf), maximal coordinates, SemiImplicitIntegrator,
                   10 sub-steps a frame, no contacts; a PD "policy" kernel sets the cart force
                   from the state every frame, as an RL rollout would.
  warp-quadruped:  64 quadrupeds (quadruped.urdf) on the ground plane, FeatherstoneIntegrator,
                   collision detection and contacts, 5 sub-steps a frame, position targets.
Each also as -graph: the frame captured once into a CUDA graph and replayed (Warp examples
do this; acs passes graph launches through), from the same initial state; the cart-pole's
graph runs the same sub-steps, so its digest must equal the eager one.

Each row: frames after warm-up (the warm-up compiles and loads the kernels), median ms per
frame (wp.synchronize() after each), digest of the final body and joint state. Contacts are
summed with atomics in Warp, so the quadruped's digest may differ between native runs; the
runner then says native-varies rather than blaming acs.

  warp_sim.py [--device cuda:0|cpu] [--quick] [--only REGEX] [--frames N] [--warmup-only]
"""
import argparse
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from real_common import digest, report, report_error, time_iterations  # noqa: E402


def grid_offsets(count, spacing):
    side = math.ceil(math.sqrt(count))
    return [((i // side - side / 2) * spacing, 0.0, (i % side - side / 2) * spacing) for i in range(count)]


def build_cartpole(wp, envs):
    art = wp.sim.ModelBuilder()
    wp.sim.parse_urdf(os.path.join(wp.examples.get_asset_directory(), "cartpole.urdf"), art,
                      xform=wp.transform(wp.vec3(), wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), -math.pi * 0.5)),
                      floating=False, density=100, armature=0.1, stiffness=0.0, damping=0.0,
                      limit_ke=1.0e4, limit_kd=1.0e1, enable_self_collisions=False)
    builder = wp.sim.ModelBuilder()
    for i, (x, _, z) in enumerate(grid_offsets(envs, 2.0)):
        builder.add_builder(art, xform=wp.transform(wp.vec3(x, 4.0, z), wp.quat_identity()))
        builder.joint_q[-3:] = [0.0, 0.3 + 0.001 * (i % 7), 0.0]
    model = builder.finalize()
    model.ground = False
    model.joint_attach_ke = 1600.0
    model.joint_attach_kd = 20.0
    return model, wp.sim.SemiImplicitIntegrator(), 10, 1.0 / 60.0


def build_quadruped(wp, envs):
    art = wp.sim.ModelBuilder()
    wp.sim.parse_urdf(os.path.join(wp.examples.get_asset_directory(), "quadruped.urdf"), art,
                      xform=wp.transform([0.0, 0.7, 0.0], wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), -math.pi * 0.5)),
                      floating=True, density=1000, armature=0.01, stiffness=200, damping=1,
                      contact_ke=1.0e4, contact_kd=1.0e2, contact_kf=1.0e2, contact_mu=1.0,
                      limit_ke=1.0e4, limit_kd=1.0e1)
    builder = wp.sim.ModelBuilder()
    pose = [0.2, 0.4, -0.6, -0.2, -0.4, 0.6, -0.2, 0.4, -0.6, 0.2, -0.4, 0.6]
    for x, y, z in grid_offsets(envs, 5.0):
        builder.add_builder(art, xform=wp.transform(wp.vec3(x, y, z), wp.quat_identity()))
        builder.joint_q[-12:] = pose
        builder.joint_act[-12:] = pose
    builder.joint_axis_mode = [wp.sim.JOINT_MODE_TARGET_POSITION] * len(builder.joint_axis_mode)
    model = builder.finalize()
    model.ground = True
    model.joint_attach_ke = 16000.0
    model.joint_attach_kd = 200.0
    return model, wp.sim.FeatherstoneIntegrator(model), 5, 1.0 / 100.0


def make_policy(wp):
    @wp.kernel
    def cart_pd(joint_q: wp.array(dtype=float), joint_qd: wp.array(dtype=float),
                joint_act: wp.array(dtype=float), dofs_per_env: int):
        e = wp.tid()
        base = e * dofs_per_env  # cart slider, then the two pole hinges
        angle = joint_q[base + 1]
        joint_act[base] = wp.clamp(-200.0 * angle - 20.0 * joint_qd[base + 1] - 5.0 * joint_qd[base], -500.0, 500.0)
    return cart_pd


def run_row(wp, name, built, envs, args, graph):
    model, integrator, substeps, frame_dt = built
    dt = frame_dt / substeps
    s0, s1 = model.state(), model.state()
    wp.sim.eval_fk(model, model.joint_q, model.joint_qd, None, s0)
    cartpole = name.startswith("warp-cartpole")
    policy = make_policy(wp) if cartpole else None
    st = {"a": s0, "b": s1}

    def frame():
        if cartpole:  # the policy reads the joints back from the bodies, then sets the cart force
            wp.sim.eval_ik(model, st["a"], model.joint_q, model.joint_qd)
            wp.launch(policy, dim=envs, inputs=[model.joint_q, model.joint_qd, model.joint_act,
                                                model.joint_coord_count // envs])
        for _ in range(substeps):
            st["a"].clear_forces()
            if not cartpole:
                wp.sim.collide(model, st["a"])
            integrator.simulate(model, st["a"], st["b"], dt)
            st["a"], st["b"] = st["b"], st["a"]

    step = frame
    if graph:
        if substeps % 2:  # the capture must end with the states where they began
            substeps *= 2
            dt /= 2
        frame()  # load the kernels outside the capture
        with wp.ScopedCapture() as capture:
            frame()
        step = lambda: wp.capture_launch(capture.graph)  # noqa: E731
    if args.warmup_only:
        step()
        wp.synchronize()
        return
    ms, _ = time_iterations(step, wp.synchronize, args.warmup, args.frames)
    arrays = [getattr(st["a"], k) for k in ("body_q", "body_qd", "joint_q", "joint_qd")]
    arrays = [a.numpy() for a in arrays if a is not None]
    finite = all(bool((a == a).all()) for a in arrays)  # no NaN: the simulation did not blow up
    report(name, "warp", ms, digest(*(a.tobytes() for a in arrays)), envs=envs, bodies=model.body_count,
           substeps=substeps, finite=finite)


def run_robot(wp, name, builder, envs, args, variants):
    """Builds the model once (Python's ModelBuilder takes a second), then runs each variant
    from the same initial state: the model's joint arrays, which the policy and eval_ik
    write, are restored in between."""
    built = builder(wp, envs)
    model = built[0]
    saved = {k: getattr(model, k).numpy().copy() for k in ("joint_q", "joint_qd", "joint_act")}
    for row, graph in variants:
        for k, v in saved.items():
            getattr(model, k).assign(v)
        try:
            run_row(wp, row, built, envs, args, graph)
        except Exception as e:  # noqa: BLE001
            report_error(row, "warp", e)
            args.failed += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", help="regex on the row names")
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--warmup-only", action="store_true", help="compile and load the kernels, time nothing")
    args = ap.parse_args()
    if args.quick:
        args.frames, args.warmup = 2, 1
    import warp as wp
    import warp.examples  # noqa: F401 - the robot models' folder
    import warp.sim  # noqa: F401
    wp.config.quiet = True
    wp.init()
    if args.device.startswith("cuda") and not wp.is_cuda_available():
        print("warp_sim.py: no CUDA device; use --device cpu (needs the full wheel) to test", file=sys.stderr)
        return 77
    print(f"# warp {wp.__version__}, device {args.device}", file=sys.stderr)
    cuda = args.device.startswith("cuda")
    robots = [("warp-cartpole", build_cartpole, 4 if args.quick else 256),
              ("warp-quadruped", build_quadruped, 4 if args.quick else 64)]
    args.failed = 0
    with wp.ScopedDevice(args.device):
        for name, builder, envs in robots:
            variants = [(name, False)] + ([(name + "-graph", True)] if cuda else [])
            variants = [v for v in variants if not args.only or re.search(args.only, v[0])]
            if not variants:
                continue
            try:
                run_robot(wp, name, builder, envs, args, variants)
            except Exception as e:  # noqa: BLE001 - the model could not be built
                for row, _ in variants:
                    report_error(row, "warp", e)
                    args.failed += 1
    failed = args.failed
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
