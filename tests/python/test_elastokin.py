# SPDX-License-Identifier: GPL-3.0-or-later
"""The Python module against the runner (docs/python.md): runs, K&C metrics, modes and frequency
responses equal elastokin-sim's files bit for bit (the same engine, the same build); the
step-wise Simulator reproduces a whole run; cell edits round-trip; every error class is raised
with the engine's message; the GIL is released during a run and Ctrl-C stops it.

Run by CTest: PYTHONPATH=build/python ELASTOKIN_SOURCE_DIR=... ELASTOKIN_SIM=... python3 -m unittest
"""
import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import numpy as np

import elastokin as ek

ROOT = os.environ["ELASTOKIN_SOURCE_DIR"]
SIM = os.environ["ELASTOKIN_SIM"]
DW = os.path.join(ROOT, "projects", "double_wishbone.json")
QDW = os.path.join(ROOT, "projects", "quarter_double_wishbone.json")
STIFFNESS = "bushings/3/y.stiffness [N/m]"


def runner(*args):
    """elastokin-sim with args; its stdout."""
    done = subprocess.run([SIM, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(f"elastokin-sim {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout


def read_csv(path):
    """Header and rows of a CSV as the runner writes it (numbers as written)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], np.array([[float(x) for x in row] for row in rows[1:]])


class Projects(unittest.TestCase):
    def test_cells_round_trip(self):
        p = ek.Project.load(QDW)
        k = p.get(STIFFNESS)
        self.assertGreater(k, 0)
        p.set(STIFFNESS, 2.5 * k)
        self.assertEqual(p.get(STIFFNESS), 2.5 * k)
        q = p.with_values({STIFFNESS: 3.0 * k, "bodies/2/mass [kg]": 12.5})
        self.assertEqual((q.get(STIFFNESS), q.get("bodies/2/mass [kg]")), (3.0 * k, 12.5))
        self.assertEqual(p.get(STIFFNESS), 2.5 * k)  # the original unchanged
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "edited.json")
            p.save(path)
            back = ek.Project.load(path)
            self.assertEqual(back.get(STIFFNESS), 2.5 * k)
            self.assertTrue(back == p)
        self.assertTrue(ek.Project.from_json(p.to_json(), QDW) == p)
        self.assertIn("LC1", p.load_cases)
        self.assertEqual(ek.Project.load(DW).twin_path("bushings/9/x.damping [N s/m]"), "bushings/29/x.damping [N s/m]")

    def test_save_keeps_the_signal_tables(self):
        # A project saved into another folder reads the same signal table; never saved onto it.
        with open(QDW) as f:
            data = json.load(f)
        data["load cases"][0]["signals"][0] = {"input": 1, "type": "table", "file": "road.csv"}
        with tempfile.TemporaryDirectory() as d:
            table = os.path.join(d, "road.csv")
            with open(table, "w") as f:
                f.write("0,0\n1,-2500\n")
            p = ek.Project.from_json(json.dumps(data), os.path.join(d, "p.json"))
            with self.assertRaisesRegex(ek.ModelError, r"table 'load cases', row 'LC1', field 'signals\[0\]\.file'"):
                p.save(table)
            with open(table) as f:
                self.assertEqual(f.read(), "0,0\n1,-2500\n")
            os.mkdir(os.path.join(d, "sub"))
            p.save(os.path.join(d, "sub", "q.json"))
            with open(os.path.join(d, "sub", "q.json")) as f:
                saved = json.load(f)
            self.assertEqual(saved["load cases"][0]["signals"][0]["file"], "../road.csv")

    def test_check_lists_every_problem(self):
        with open(QDW) as f:
            data = json.load(f)
        data["bodies"][1]["mass [kg]"] = -1.0
        data["bushings"][0]["marker_i"] = 9999
        broken = ek.Project.from_json(json.dumps(data), "broken.json")
        problems = [x for x in broken.check() if x.severity == "error"]
        self.assertEqual(len(problems), 2, [str(x) for x in problems])
        self.assertEqual((problems[0].table, problems[0].row, problems[0].field), ("bodies", "id 1", "mass [kg]"))
        self.assertEqual(problems[0].message, "mass must be positive, is -1")
        self.assertEqual((problems[1].table, problems[1].field), ("bushings", "marker_i"))
        # Running it: a ModelError carrying every error.
        with self.assertRaises(ek.ModelError) as caught:
            ek.run(broken, "LC1")
        errors = caught.exception.errors
        self.assertGreaterEqual(len(errors), 2)
        for e in errors:
            self.assertIsInstance(e, ek.Problem)
            self.assertEqual(e.file, "broken.json")
            self.assertEqual(e.severity, "error")
        self.assertTrue(any(e.table == "bodies" and "mass" in e.field for e in errors), [str(e) for e in errors])
        self.assertTrue(any(e.table == "bushings" for e in errors), [str(e) for e in errors])
        self.assertIn("broken.json: table 'bodies'", str(caught.exception))
        self.assertIsInstance(caught.exception, ValueError)
        # A file that is not a project: a ModelError at once, naming the line.
        with self.assertRaisesRegex(ek.ModelError, "broken.json: .*line 1"):
            ek.Project.from_json('{"bodies": [1, 2,', "broken.json")
        # check() on a valid project: warnings only, as records.
        for problem in ek.Project.load(DW).check():
            self.assertEqual(problem.severity, "warning")

    def test_error_classes(self):
        with self.assertRaisesRegex(ek.ModelError, "such.json: cannot open the file"):
            ek.Project.load(os.path.join(ROOT, "no", "such.json"))
        p = ek.Project.load(QDW)
        with self.assertRaises(ek.FileError) as caught:
            p.save(os.path.join(ROOT, "no", "such", "folder", "p.json"))
        self.assertIn("no/such/folder", str(caught.exception))
        self.assertIsInstance(caught.exception, OSError)
        with self.assertRaisesRegex(ValueError, r"unknown load case 'LC9' \(the project has: 'LC1'"):
            ek.run(p, "LC9")
        with self.assertRaisesRegex(ValueError, "no such row|does not exist|no row"):
            p.get("bushings/999/y.stiffness [N/m]")
        with self.assertRaisesRegex(ValueError, "unknown load 'fq'"):
            ek.kc(ek.Project.load(DW), "static-load", load="fq")
        # A run that diverges: the samples up to the stop and the engine's message.
        runaway = ek.Project.load(os.path.join(ROOT, "tests", "data", "free_floating.json"))
        runaway.set("bodies/1/mass [kg]", 1e-6)
        r = ek.run(runaway, "push")
        self.assertRegex(r.failure, r"run diverged at t = [0-9.]+ s \(step [0-9]+\)")
        self.assertGreater(len(r.time), 10)
        with self.assertRaisesRegex(ek.SimulationError, "diverged"):
            sim = ek.Simulator(runaway, "push")
            sim.step(steps=500)


class Runs(unittest.TestCase):
    def test_run_equals_the_runner(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "lc1.csv")
            runner(DW, "--loadcase", "LC1", "--duration", "0.5", "--quiet", "--out", out)
            header, rows = read_csv(out)
        r = ek.run(ek.Project.load(DW), "LC1", duration=0.5)
        self.assertEqual(header[1:], r.keys())
        self.assertTrue(np.array_equal(rows[:, 0], r.time))
        self.assertTrue(np.array_equal(rows[:, 1:], r.values), np.abs(rows[:, 1:] - r.values).max())
        self.assertTrue(np.array_equal(r["wheel centre z left [m]"], r["wheel centre z left"]))
        self.assertEqual(r.unit("wheel centre z left"), "m")
        self.assertEqual(r.failure, "")

    def test_stepwise_reproduces_a_run(self):
        p = ek.Project.load(DW)
        whole = ek.run(p, "LC1", duration=0.2, sample_rate=1000)
        sim = ek.Simulator(p, "LC1")
        names = sim.output_names
        cols = [names.index(n) for n in whole.names]
        worst = 0.0
        for k in range(1, len(whole.time)):
            sim.step()
            self.assertAlmostEqual(sim.time, whole.time[k], delta=1e-12)
            diff = np.abs(sim.output_array[cols] - whole.values[k])
            worst = max(worst, (diff / (np.ptp(whole.values, axis=0) + 1e-300)).max())
        print(f"\nstep-wise against a whole run: largest difference {worst:.2e} of each channel's range")
        self.assertLess(worst, 1e-12)
        # Inputs from outside, held over each step: the run that holds the load case's values.
        held = ek.run(p, "LC1", duration=0.2, hold_inputs=True)
        follower, driven = ek.Simulator(p, "LC1"), ek.Simulator(p, "LC1")
        worst = 0.0
        for k in range(1, len(held.time)):
            driven.step(follower.inputs)  # the load case's values at the step's start, by name
            follower.step()
            worst = max(worst, np.abs(driven.output_array[cols] - held.values[k]).max())
        print(f"inputs set step by step against --hold-inputs: largest difference {worst:.2e}")
        self.assertEqual(worst, 0.0)

    def test_simulator_snapshot_and_inputs(self):
        p = ek.Project.load(DW)
        sim = ek.Simulator(p)  # no load case: inputs held at 0 from the static equilibrium
        self.assertEqual(sim.inputs, {n: 0.0 for n in sim.input_names})
        sim.step({"Fz wheel left": 1500.0}, steps=10)
        saved = sim.snapshot()
        sim.step(steps=30)
        first = sim.output_array
        sim.restore(saved)
        self.assertEqual(sim.steps, 10)
        sim.step(steps=30)
        self.assertTrue(np.array_equal(first, sim.output_array))
        with self.assertRaisesRegex(ValueError, "unknown input 'Fz wheel middle'"):
            sim.step({"Fz wheel middle": 1.0})
        with self.assertRaisesRegex(ValueError, "values must be finite"):
            sim.step({"Fz wheel left": float("nan")})
        with self.assertRaisesRegex(ValueError, "the model has 5 inputs"):
            sim.step([1.0, 2.0])

    def test_out_of_range_options_are_value_errors(self):
        p = ek.Project.load(QDW)
        lc = "LC1"
        bad = [
            (lambda: ek.run(p, lc, threads=100000), "threads=100000: must be a whole number from 1 to 64"),
            (lambda: ek.run(p, lc, dt=0.0), "dt=0: must be a positive finite number"),
            (lambda: ek.run(p, lc, dt=-1.0), "dt=-1: must be a positive"),
            (lambda: ek.run(p, lc, dt=float("nan")), "dt=nan: must be a positive"),
            (lambda: ek.run(p, lc, duration=-1.0), "duration=-1: must be a positive"),
            (lambda: ek.run(p, lc, lin_every=0), "lin_every=0: must be a whole number from 1"),
            (lambda: ek.run(p, lc, start=1e300), "1e+300"),
            (lambda: ek.kc(p, "parallel-travel", points=10**9), "points=1000000000: must be a whole number from 2 to 100000"),
            (lambda: ek.kc(p, "parallel-travel", tolerance=0.0), "tolerance=0: must be a number above 0"),
            (lambda: ek.kc(p, "parallel-travel", tolerance=float("nan")), "tolerance=nan"),
            (lambda: ek.kc(p, "parallel-travel", tolerance=1e300), "at most 0.01"),
            (lambda: ek.Simulator(p, dt=0.0), "dt=0: must be a positive"),
            (lambda: ek.Simulator(p, lin_every=-1), "lin_every=-1"),
            (lambda: ek.Simulator(p, start=1e300), "cannot be told apart from round-off"),
        ]
        for call, message in bad:
            with self.assertRaises(ValueError) as caught:
                call()
            self.assertIn(message, str(caught.exception))

    def test_simulator_refuses_what_does_not_fit(self):
        one = ek.Simulator(ek.Project.load(DW))
        other = ek.Simulator(ek.Project.load(QDW))
        with self.assertRaisesRegex(ValueError, "a snapshot of another model"):
            one.restore(other.snapshot())
        one.step(steps=2)
        self.assertEqual(one.steps, 2)
        # A second thread while one steps: refused, not stepped at once.
        busy = threading.Thread(target=lambda: one.step(steps=40000))
        busy.start()
        time.sleep(0.2)
        still_running = busy.is_alive()
        try:
            one.step()
            refused = False
        except RuntimeError as e:
            refused = "in use by another thread" in str(e)
        busy.join()
        if still_running:  # on a machine so loaded that the first thread had finished, nothing to test
            self.assertTrue(refused)
        self.assertEqual(one.steps, 40002)  # the refused call took no step

    def test_gil_released_and_ctrl_c(self):
        p = ek.Project.load(DW)
        ticks = [0]
        stop = threading.Event()

        def count():
            while not stop.is_set():
                ticks[0] += 1
                time.sleep(0.001)

        t = threading.Thread(target=count)
        t.start()
        start = time.monotonic()
        ek.run(p, "LC1", duration=40.0, sample_rate=100)
        wall = time.monotonic() - start
        stop.set()
        t.join()
        # With the GIL held for the run the other thread would not tick at all until it ended.
        print(f"\nanother Python thread ticked {ticks[0]} times (every 1 ms) during a {wall:.2f} s run")
        self.assertGreater(ticks[0], 0.3 * wall / 0.001)
        script = ("import elastokin as ek, sys, time\n"
                  f"p = ek.Project.load({DW!r})\n"
                  "print('running', flush=True)\n"
                  "t = time.monotonic()\n"
                  "try:\n"
                  "    ek.run(p, 'LC1', duration=600.0, sample_rate=10)\n"
                  "except KeyboardInterrupt:\n"
                  "    print('interrupted after %.2f s' % (time.monotonic() - t), flush=True)\n"
                  "    sys.exit(3)\n")
        child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=os.environ)
        self.assertEqual(child.stdout.readline().strip(), "running")
        time.sleep(1.0)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=60)
        print(f"Ctrl-C: the run stopped {time.monotonic() - sent:.3f} s after the signal ({out.strip()})")
        self.assertEqual(child.returncode, 3, out)
        self.assertIn("interrupted after", out)


class Manoeuvres(unittest.TestCase):
    def test_step_steer_equals_the_runner(self):
        vehicle = os.path.join(ROOT, "projects", "full_vehicle_tyres.json")
        params = {"speed": 20.0, "angle": 15.0, "hold": 1.5}
        r = ek.manoeuvre(ek.Project.load(vehicle), "step-steer", params)
        with tempfile.TemporaryDirectory() as d:
            out, metrics = os.path.join(d, "series.csv"), os.path.join(d, "metrics.json")
            runner(vehicle, "--manoeuvre", "step-steer", *sum((["--param", f"{k}={v}"] for k, v in params.items()), []),
                   "--quiet", "--out", out, "--metrics", metrics)
            with open(metrics) as f:
                document = json.load(f)
            with open(out) as f:
                rows = list(csv.reader(f))
        self.assertEqual(len(document["metrics"]), len(r["metrics"]))
        for m in document["metrics"]:
            self.assertEqual(r["metrics"][m["name"]], m["value"], m["name"])
            self.assertEqual(r["units"][m["name"]], m["unit"])
        self.assertEqual(r["columns"], rows[0])
        self.assertEqual(r["series"].shape, (len(rows) - 1, len(rows[0])))
        self.assertEqual(r["series"][-1, 3], float(rows[-1][3]))  # the yaw rate, shortest text round-trips
        self.assertGreater(r["metrics"]["steady-state yaw rate"], 0.0)  # a left turn
        self.assertIn("sine-with-dwell", ek.manoeuvres())
        with self.assertRaisesRegex(ValueError, "unknown parameter 'sped'"):
            ek.manoeuvre(ek.Project.load(vehicle), "step-steer", {"sped": 20.0})

    def test_double_lane_change_gives_the_track_and_the_runners_lanes(self):
        vehicle = os.path.join(ROOT, "projects", "full_vehicle_tyres.json")
        params = {"speed": 13.0, "steering gain": 50.0, "settle": 0.5}
        r = ek.manoeuvre(ek.Project.load(vehicle), "double-lane-change", params)
        with tempfile.TemporaryDirectory() as d:
            metrics = os.path.join(d, "metrics.json")
            runner(vehicle, "--manoeuvre", "double-lane-change",
                   *sum((["--param", f"{k}={v}"] for k, v in params.items()), []), "--quiet", "--metrics", metrics)
            with open(metrics) as f:
                document = json.load(f)
        self.assertEqual(r["lanes"].shape, (3, 4))
        self.assertEqual(r["track_path"].shape, (r["series"].shape[0], 3))
        self.assertEqual([[l["from [m]"], l["to [m]"], l["right [m]"], l["left [m]"]] for l in document["lanes"]],
                         r["lanes"].tolist())
        self.assertIn("cone lines crossed", r["limits"])
        self.assertEqual(r["metrics"]["cone lines crossed"],
                         next(m["value"] for m in document["metrics"] if m["name"] == "cone lines crossed"))
        # the centre of mass crosses the track from the entry gate to past its end (61 m)
        self.assertLess(r["track_path"][0, 0], 0.0)
        self.assertGreater(r["track_path"][-1, 0], 61.0)

    def test_targets_are_judged(self):
        path = os.path.join(ROOT, "projects", "full_vehicle_tyres.json")
        with open(path) as f:
            doc = json.load(f)
        doc["targets"] = [{"id": 1, "manoeuvre": "step-steer", "metric": "yaw rate overshoot", "upper": 20.0},
                          {"id": 2, "manoeuvre": "step-steer", "metric": "yaw rate response time", "lower": 0.05, "upper": 0.15}]
        p = ek.Project.from_json(json.dumps(doc), path)
        r = ek.manoeuvre(p, "step-steer", {"speed": 20.0, "angle": 15.0, "hold": 1.5})
        self.assertEqual(set(r["targets"]), {"yaw rate overshoot", "yaw rate response time"})
        self.assertEqual(r["targets"]["yaw rate overshoot"], (None, 20.0, r["metrics"]["yaw rate overshoot"] <= 20.0))
        self.assertEqual(r["targets"]["yaw rate response time"][:2], (0.05, 0.15))
        self.assertFalse(r["targets"]["yaw rate response time"][2])  # 0.2 s


class Analyses(unittest.TestCase):
    def test_kc_metrics_equal_the_runners(self):
        p = ek.Project.load(DW)
        with tempfile.TemporaryDirectory() as d:
            for args, result in (
                (["parallel-travel"], lambda: ek.kc(p, "parallel-travel")),
                (["static-load", "--load", "fy-contact", "--from", "-2000", "--to", "2000", "--points", "9"],
                 lambda: ek.static_load(p, "fy-contact", from_=-2000.0, to=2000.0, points=9)),
                (["single-travel", "--wheel", "1", "--from", "-40", "--to", "40", "--points", "17"],
                 lambda: ek.kc(p, "single-travel", wheel=1, from_=-0.04, to=0.04, points=17)),
            ):
                out, metrics = os.path.join(d, "kc.csv"), os.path.join(d, "kc.json")
                runner(DW, "--analysis", args[0], *args[1:], "--quiet", "--out", out, "--metrics", metrics)
                r = result()
                with open(metrics) as f:
                    document = json.load(f)
                expected = document["metrics"]
                self.assertEqual(len(expected), len(r.metrics))
                for m, x in zip(r.metrics, expected):
                    self.assertEqual((m.name, m.wheel, m.unit), (x["name"], x["wheel"], x["unit"]))
                    self.assertEqual(m.value, x["value"], m.name)  # full precision: equal
                header, rows = read_csv(out)
                self.assertEqual(header[1:], r.keys())
                self.assertTrue(np.array_equal(rows[:, 0], r.sweep))
                self.assertTrue(np.array_equal(rows[:, 1:], r.values))
                # The whole --metrics document, the targets' verdicts included.
                self.assertIn("targets", document)
                self.assertEqual(json.loads(r.metrics_json), document)
        self.assertEqual(r.metric("bump steer", "wheel left"), r.metrics_dict()[("bump steer", "wheel left")])

    def test_modes_and_frequency_response_equal_the_runners(self):
        p = ek.Project.load(DW)
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "modes.csv")
            runner(DW, "--analysis", "modes", "--quiet", "--out", out)
            header, rows = read_csv_loose(out)
            m = ek.modes(p)
            self.assertEqual(len(m), len(rows))
            self.assertEqual([float(r[1]) for r in rows], list(m.frequency))
            self.assertEqual([float(r[3]) for r in rows], list(m.damping_ratio))
            self.assertEqual([r[6] for r in rows], m.dominant_body)
            out = os.path.join(d, "frf.csv")
            runner(DW, "--analysis", "frequency-response", "--wheel", "1", "--load", "fz-contact", "--points", "50",
                   "--quiet", "--out", out)
            header, rows = read_csv(out)
        f = ek.frequency_response(p, wheel=1, load="fz-contact", points=50)
        self.assertTrue(np.array_equal(rows[:, 0], f.frequency))
        k = header.index("wheel left toe magnitude [rad/N]")
        self.assertTrue(np.array_equal(rows[:, k], f.magnitude("wheel left toe")))
        self.assertTrue(np.array_equal(rows[:, k + 1], f.phase("wheel left toe")))
        self.assertTrue(np.allclose(f.magnitude("wheel left toe"), np.abs(f["wheel left toe"]), rtol=1e-15, atol=0))


def read_csv_loose(path):
    """Header and rows as text (the modes file has a text column)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


class Studies(unittest.TestCase):
    def test_study_from_a_file_and_from_python(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(ROOT, "tests", "data", "studies")
            for name in ("oscillator.json", "oscillator_doe.study.json"):
                with open(os.path.join(src, name)) as f, open(os.path.join(d, name), "w") as g:
                    g.write(f.read())
            s = ek.Study.load(os.path.join(d, "oscillator_doe.study.json"))
            self.assertEqual(s.variables, ["damping", "mass"])
            r = s.run(threads=2)
            self.assertEqual(r.values.shape, (12, 2))
            self.assertEqual(r.criteria.shape, (12, 3))
            self.assertTrue(r.ok.all())
            self.assertTrue(os.path.exists(s.results_file))
            # A run's criteria equal an evaluation of its values.
            one = s.evaluate(r.values[4])
            self.assertEqual(one["overshoot"], r.criterion("overshoot")[4])
            # Built in Python: the same study as a dict, on a project edited in Python.
            with open(os.path.join(d, "oscillator_doe.study.json")) as f:
                definition = json.load(f)
            definition["study"] = {"type": "sensitivity"}
            project = ek.Project.load(os.path.join(d, "oscillator.json"))
            sens = ek.Study(definition, path=os.path.join(d, "python.study.json"), project=project).run()
            self.assertEqual(len(sens.sensitivities), 6)
            self.assertTrue(all(x["ok"] for x in sens.sensitivities))
            with self.assertRaises(ek.ModelError) as caught:
                definition["variables"][0]["path"] = "bushings/1/x.nothing [N s/m]"
                ek.Study(definition, path=os.path.join(d, "bad.study.json"), project=project)
            self.assertIn("bad.study.json", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
