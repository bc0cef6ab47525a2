"""Callers decide by a backend's capabilities, never by its name (issue 22: names instead of capabilities)."""

from __future__ import annotations

import ast

from latent_agent.device.adb import AdbDevice
from latent_agent.device.adb_backed import AdbBackedDevice
from latent_agent.device.adb_phone import AdbPhone
from latent_agent.device.androidenv import AndroidEnvDevice
from latent_agent.device.base import DeviceCapabilities
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.spec import BACKENDS, capabilities_of, parse_device_spec
from latent_agent.device.u2 import U2Device
from tests.device_adb.fakes import RecordingDevice
from tests.name_comparisons import FOLDERS, ROOT, attribute_or_name, name_comparisons, package_comparisons

#: The registry itself, where each name is declared once with its flags.
REGISTRY = "device/spec.py"


def _is_kind(node: ast.expr) -> bool:
    """A backend's name as code holds it: ``spec.kind``, ``kind``, ``device_kind`` (a suite's or a source's
    name, which may be spelled like a backend's, is not one)."""
    return attribute_or_name("kind")(node)


def test_no_module_outside_the_registry_compares_a_backends_name() -> None:
    found = package_comparisons(_is_kind, BACKENDS, registries=[REGISTRY])
    assert not found, "decide by DeviceCapabilities instead:\n" + "\n".join(found)


def test_the_check_finds_a_comparison_by_name() -> None:
    source = ('def f(spec, kind: str, suite: str) -> bool:\n'
              '    return spec.kind != "sim" or kind in ("adb", "x") or suite == "sim"\n')
    assert name_comparisons(source, "probe.py", _is_kind, BACKENDS) == ["probe.py:2: compares with 'sim'",
                                                                       "probe.py:2: compares with 'adb'"]


def test_every_backend_declares_its_capabilities_in_the_registry() -> None:
    for name, backend in BACKENDS.items():
        assert isinstance(backend.capabilities, DeviceCapabilities)
        spec = parse_device_spec(f"{name}:x" if backend.needs_arg else name)
        assert capabilities_of(spec) is backend.capabilities
    assert [n for n, b in BACKENDS.items() if b.capabilities.task_reward] == ["miniwob"]
    assert {n for n, b in BACKENDS.items() if b.seeded} == {"sim", "miniwob"}


def test_every_backend_names_a_known_extra_or_none() -> None:
    from latent_agent.extras import EXTRAS

    assert {b.extra for b in BACKENDS.values()} - {None} <= set(EXTRAS)
    assert BACKENDS["sim"].extra is None  # the simulated phone needs nothing installed


def device_probes(source: str, where: str) -> list[str]:
    """``getattr``/``hasattr`` on a device (``device``, ``self.device``, ``sim_device``): asking an object for
    an attribute its type does not promise."""
    return [f"{where}:{node.lineno}: {ast.unparse(node)}" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
            and node.args and attribute_or_name("device")(node.args[0])]


def test_no_module_probes_a_device_for_attributes() -> None:
    found = [hit for folder in FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))
             for hit in device_probes(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))]
    assert not found, "use what Device, AdbPhone or the capabilities promise instead:\n" + "\n".join(found)
    assert device_probes("seed = getattr(device, 'seed', None)\nhasattr(self.device, 'adb')\n", "probe.py") == [
        "probe.py:1: getattr(device, 'seed', None)", "probe.py:2: hasattr(self.device, 'adb')"]


def test_the_device_interface_imports_no_backend() -> None:
    tree = ast.parse((ROOT / "device" / "base.py").read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert not [module for module in imported if module.startswith("latent_agent.device.")]


def test_a_seed_and_a_shell_are_promised_by_types() -> None:
    assert SimDevice(seed=6).seed == 6 and RecordingDevice().seed is None
    # Every backend reached over adb is an AdbPhone (a serial, a shell, the reset of a phone over adb); those
    # with a channel of their own beside adb share one base that forwards adb's questions.
    assert all(issubclass(cls, AdbPhone) for cls in (AdbDevice, U2Device, AndroidEnvDevice))
    assert issubclass(U2Device, AdbBackedDevice) and issubclass(AndroidEnvDevice, AdbBackedDevice)
    assert not issubclass(SimDevice, AdbPhone)
