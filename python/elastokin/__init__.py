# SPDX-License-Identifier: GPL-3.0-or-later
"""Elastokin for Python: projects, runs, K&C, modes, frequency responses and studies.

The engine is the one the runner and the workbench use (the compiled module ``elastokin._core``);
this package only wraps its arrays in small result classes. Units are SI throughout: metres,
radians, newtons, seconds (the runner's ``--from``/``--to`` in mm and degrees are metres and
radians here). See docs/python.md.

    >>> import elastokin as ek
    >>> p = ek.Project.load("projects/double_wishbone.json")
    >>> r = ek.run(p, "LC1", duration=1.0)
    >>> r["wheel centre z left [m]"][-1]
"""

import json as _json

import numpy as _np

from . import _core
from ._core import FileError, ModelError, Problem, Project, SimulationError, Simulator, Snapshot

__all__ = [
    "Project", "Problem", "ModelError", "SimulationError", "FileError",
    "run", "Result", "Simulator", "Snapshot",
    "kc", "static_load", "KcResult", "Metric",
    "modes", "Modes", "frequency_response", "FrequencyResponse",
    "Study", "StudyResult",
    "manoeuvre", "manoeuvres",
]


def manoeuvre(project, name, params=None):
    """Runs a standard manoeuvre on a vehicle on tyres (docs/manoeuvres.md): "step-steer" (ISO 7401),
    "steady-state-circle" (ISO 4138), "sine-with-dwell" (FMVSS 126), "swept-sine",
    "double-lane-change" (ISO 3888-2 / -1, closed loop), "double-lane-change-limit" (its highest
    passing speed); ``params`` a
    dict of the manoeuvre's parameters (``manoeuvres()`` lists them, in the runner's units).

    Returns a dict: ``metrics`` (name -> value), ``units`` (name -> unit), ``limits`` (name ->
    (limit, passed) for the figures a standard bounds), ``targets`` (name -> (lower, upper, met)
    for the metrics the project's targets table names), ``parameters`` (every one, as used),
    ``columns`` and ``series`` (the vehicle's time series, one row per step),
    ``frequency_response`` (swept sine: frequency, yaw rate gain and phase, lateral acceleration
    gain and phase), ``lanes`` and ``track_path`` (the lane changes: each lane between cones as
    x from, x to, right and left boundary; per row the centre of mass's x, y and the reference
    path's y in the track's frame) and ``notes``. The same figures as ``elastokin-sim --manoeuvre``."""
    return _core.manoeuvre(project, name, {str(k): float(v) for k, v in (params or {}).items()})


def manoeuvres():
    """Every manoeuvre's parameters: name -> [(key, unit, default, meaning), ...]."""
    return _core.manoeuvres()


class _Columns:
    """Columns of a 2-D array by name: "name [unit]" as in the runner's CSV header, or the name alone."""

    def _setup(self, names, units, values):
        self.names = list(names)
        self.units = list(units)
        self.values = values
        self.columns = [f"{n} [{u}]" for n, u in zip(self.names, self.units)]
        self._index = {}
        for k, (n, c) in enumerate(zip(self.names, self.columns)):
            self._index.setdefault(c, k)
            self._index.setdefault(n, k)

    def __getitem__(self, key):
        try:
            return self.values[:, self._index[key]]
        except KeyError:
            raise KeyError(f"no column {key!r}; the columns are: {', '.join(self.columns)}") from None

    def __contains__(self, key):
        return key in self._index

    def keys(self):
        """The columns as the runner's CSV header names them ("name [unit]")."""
        return list(self.columns)

    def unit(self, key):
        """The unit of a column."""
        return self.units[self._index[key]]


class Result(_Columns):
    """A run: ``time`` [s] and every output channel, ``result["wheel centre z left [m]"]``.

    ``failure`` is the engine's message when the run stopped early (the samples up to the stop are
    kept, as the runner keeps them), else empty.
    """

    def __init__(self, raw):
        self.time = raw["time"]
        self._setup(raw["names"], raw["units"], raw["values"])
        self.failure = raw["failure"]
        self.note = raw["note"]
        self.steps = raw["steps"]
        self.integrator = raw["integrator"]
        self.error_estimate = raw.get("error_estimate")

    def __repr__(self):
        return f"<Result: {len(self.time)} samples x {len(self.names)} channels, {self.steps} steps>"


def run(project, loadcase, dt=None, duration=None, start=0.0, integrator="lsrt2", lin_every=None,
        channels=None, sample_rate=None, solver="topology", hold_inputs=False, threads=1):
    """Runs a load case as ``elastokin-sim`` does and returns a :class:`Result`.

    ``dt``, ``lin_every`` and ``sample_rate`` default to the project's; ``duration`` to the rest of
    the load case after ``start``; ``channels`` (names) to all the project's outputs.
    ``hold_inputs`` holds every input over each step at its value at the step's start (what an
    FMU or a :class:`Simulator` fed from the load case computes). The GIL is released during the
    run; Ctrl-C stops it (KeyboardInterrupt).
    """
    raw = _core.run(project, loadcase, dt=dt, duration=duration, start=start, integrator=integrator,
                    lin_every=lin_every, channels=channels, sample_rate=sample_rate, solver=solver,
                    hold_inputs=hold_inputs, threads=threads)
    return Result(raw)


class Metric:
    """A K&C metric at the design position: name, wheel ("" for the axle), value, unit."""

    __slots__ = ("name", "wheel", "unit", "value")

    def __init__(self, name, wheel, unit, value):
        self.name, self.wheel, self.unit, self.value = name, wheel, unit, value

    def __repr__(self):
        where = f" ({self.wheel})" if self.wheel else ""
        return f"<Metric {self.name}{where} = {self.value:.6g} {self.unit}>"


class KcResult(_Columns):
    """A K&C sweep: ``sweep`` (the swept travel [m], load [N] or input), every wheel's channels
    and the project's outputs per point by column name, and the ``metrics`` at the design position.
    """

    def __init__(self, raw):
        self.analysis = raw["analysis"]
        self.sweep = raw["sweep"]
        self.sweep_name = raw["sweep_name"]
        self.sweep_unit = raw["sweep_unit"]
        self._setup(raw["columns"], raw["units"], raw["values"])
        self.metrics = [Metric(*m) for m in raw["metrics"]]
        self.iterations = raw["iterations"]
        self.metrics_json = raw["metrics_json"]

    def metric(self, name, wheel=""):
        """The value of a metric by name (and wheel name for a per-wheel metric)."""
        for m in self.metrics:
            if m.name == name and m.wheel == wheel:
                return m.value
        known = ", ".join(sorted({f"{m.name!r}" + (f" ({m.wheel})" if m.wheel else "") for m in self.metrics}))
        raise KeyError(f"no metric {name!r}" + (f" of wheel {wheel!r}" if wheel else "") + f"; the metrics are: {known}")

    def metrics_dict(self):
        """{(name, wheel): value}."""
        return {(m.name, m.wheel): m.value for m in self.metrics}

    def __repr__(self):
        return f"<KcResult {self.analysis}: {len(self.sweep)} points x {len(self.names)} columns, {len(self.metrics)} metrics>"


def kc(project, analysis, wheel=None, load=None, input=None, from_=None, to=None, points=None, tolerance=1e-8):
    """A K&C analysis as ``elastokin-sim --analysis`` runs it, in SI units.

    ``analysis``: "parallel-travel", "opposite-travel", "single-travel" (``wheel`` = its id),
    "static-load" (``load`` = "fx-contact", "fy-contact", "fz-contact", "mx", "my", "mz",
    "fx-centre"; ``wheel`` optional) or "steering" (``input`` = the rack's input id). ``from_`` and
    ``to`` in metres (travel, rack), radians (a rotation input) or newtons / N m (loads); the
    defaults are the runner's (+-80 mm, +-5 kN, +-50 mm or +-30 deg).
    """
    return KcResult(_core.kc(project, analysis, wheel=wheel, load=load, input=input, from_=from_, to=to,
                             points=points, tolerance=tolerance))


def static_load(project, load, wheel=None, from_=None, to=None, points=None):
    """``kc(project, "static-load", load=...)``: a load swept at the contact point or centre."""
    return kc(project, "static-load", wheel=wheel, load=load, from_=from_, to=to, points=points)


class Modes:
    """Eigenmodes of the linearization: ``frequency`` [Hz], ``damped_frequency``, ``damping_ratio``,
    ``eigenvalue`` (complex, 1/s), ``dominant_body`` (names), ``largest_energy`` (the runner's
    text: "wheel left + wheel right, in phase (29 % each)" for a mode of mirror images),
    ``energy`` (modes x bodies), ascending in frequency."""

    def __init__(self, raw):
        for key, value in raw.items():
            setattr(self, key, value)

    def __len__(self):
        return len(self.frequency)

    def __repr__(self):
        return f"<Modes: {len(self.frequency)} modes at the {self.point}>"


def modes(project, loadcase=None):
    """The modes at a load case's initial state, or at the K&C design position (the default when
    the project has wheels), as ``elastokin-sim --analysis modes``."""
    return Modes(_core.modes(project, loadcase=loadcase))


class FrequencyResponse:
    """Transfer functions: ``frequency`` [Hz] and, per output, a complex response per unit input:
    ``response["wheel left toe"]``; ``magnitude(name)`` and ``phase(name)`` (degrees)."""

    def __init__(self, raw):
        self.frequency = raw["frequency"]
        self.outputs = list(raw["outputs"])
        self.units = list(raw["units"])
        self.values = raw["response"]
        self._magnitude = raw["magnitude"]
        self._phase = raw["phase"]
        self.input_name = raw["input_name"]
        self.input_unit = raw["input_unit"]
        self.point = raw["point"]

    def __getitem__(self, name):
        return self.values[self._row(name)]

    def _row(self, name):
        try:
            return self.outputs.index(name)
        except ValueError:
            raise KeyError(f"no output {name!r}; the outputs are: {', '.join(self.outputs)}") from None

    def magnitude(self, name):
        """|H| per unit input, as the runner's CSV has it."""
        return self._magnitude[self._row(name)]

    def phase(self, name):
        """arg H in degrees, as the runner's CSV has it."""
        return self._phase[self._row(name)]

    def __repr__(self):
        return f"<FrequencyResponse to {self.input_name}: {len(self.frequency)} frequencies x {len(self.outputs)} outputs>"


def frequency_response(project, wheel=None, load=None, input=None, from_=0.5, to=100.0, points=500, loadcase=None,
                       channels=None):
    """Frequency response to a wheel load (``wheel`` id and ``load`` key) or a project input
    (``input`` id), log-spaced from ``from_`` to ``to`` Hz, as the runner computes it."""
    return FrequencyResponse(_core.frequency_response(project, wheel=wheel, load=load, input=input, from_=from_, to=to,
                                                      points=points, loadcase=loadcase, channels=channels))


class StudyResult:
    """Every run of a study: ``run`` numbers, ``phase``, ``ok``, ``values`` (runs x variables),
    ``criteria`` (runs x criteria), ``message``; ``sensitivities``, ``optimizations`` and the
    ``summary`` as the study runner prints it; ``criterion(name)`` is one criterion's column."""

    def __init__(self, raw):
        for key, value in raw.items():
            setattr(self, key, value)
        self.criteria_names = list(self.criteria_names)

    def criterion(self, name):
        return self.criteria[:, self.criteria_names.index(name)]

    def __repr__(self):
        return f"<StudyResult: {len(self.run)} runs ({self.new_runs} new, {self.failed_runs} failed)>"


class Study:
    """A parameter study (docs/studies.md): from a study file, ``Study.load(path)``, or from a
    dict with the study file's keys, ``Study(dict, path=..., project=...)``: ``path`` names it in
    messages and places its results file; ``project`` replaces its "project" file."""

    def __init__(self, definition, path="study.json", project=None):
        if isinstance(definition, _core.Study):
            self._study = definition
        else:
            text = definition if isinstance(definition, str) else _json.dumps(definition)
            self._study = _core.Study.from_json(text, path, project)

    @classmethod
    def load(cls, path):
        return cls(_core.Study.load(path))

    variables = property(lambda self: self._study.variables)
    criteria = property(lambda self: self._study.criteria)
    project = property(lambda self: self._study.project)
    type = property(lambda self: self._study.type)
    results_file = property(lambda self: self._study.results_file)

    def apply(self, values):
        """The project with a design's values set (variables and their twins)."""
        return self._study.apply(list(values))

    def evaluate(self, values):
        """Every criterion of one design, {name: value} (SimulationError if the design fails)."""
        return self._study.evaluate(list(values))

    def run(self, threads=1, fresh=False, max_runs=None):
        """Runs the study on ``threads`` threads (resuming its results file unless ``fresh``)."""
        return StudyResult(self._study.run(threads=threads, fresh=fresh, max_runs=max_runs))

    def __repr__(self):
        return f"<Study {self.type}: {len(self.variables)} variables, {len(self.criteria)} criteria>"
