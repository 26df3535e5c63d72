import pytest

import rtac
from conftest import LTE, small


def message(excinfo):
    return str(excinfo.value)


def test_a_bad_grid_value_names_the_file_and_the_field(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(rtac.ScenarioError) as e:
        rtac.sweep(LTE, grid={"link[0].rate": ["10mbit", "fast"]}, out=out, progress=False)
    assert message(e).startswith(f'{LTE}: link[0].rate: cannot read "fast": expected a rate')
    assert not out.exists(), "nothing is written before every point is checked"


@pytest.mark.parametrize(
    "field, value, expected",
    [
        ("flow[1].cc", "reno", "scenario (dict): flow[1]: no such entry: flow has 1 entry"),
        ("link[1].queue", "droptail:packets=10", "scenario (dict): link[1]: no such entry: link has 1 entry"),
        ("flow[0].cc", "vegas9", "scenario (dict): flow[0].cc: "),
        ("link[0].rat", "1mbit", 'scenario (dict): link[0].rat: unknown key; did you mean "rate"?'),
        ("link[0].queue", "droptail:packets=-5", "scenario (dict): link[0].queue: "),
        ("link[0.rate", "1mbit", "scenario (dict): link[0.rate: cannot read the field name"),
    ],
)
def test_fields_outside_or_invalid_are_named(field, value, expected):
    with pytest.raises(rtac.ScenarioError) as e:
        rtac.sweep(small(), grid={field: [value]}, progress=False)
    assert message(e).startswith(expected), message(e)


def test_bad_scenarios_carry_the_cli_message(tmp_path):
    with pytest.raises(rtac.ScenarioError) as e:
        rtac.simulate(tmp_path / "missing.toml")
    assert message(e).startswith(f"{tmp_path / 'missing.toml'}: cannot read the scenario")
    with pytest.raises(rtac.ScenarioError) as e:
        rtac.simulate('duration = "3s"\n[[link]\n')
    assert message(e).startswith("scenario (string):2:"), message(e)
    assert "invalid TOML" in message(e)
    with pytest.raises(rtac.ScenarioError) as e:
        rtac.simulate(small(), controllers=["rtak"])
    assert 'controllers[0]: unknown controller "rtak"; known controllers: none, static' in message(e)
    bad = small()
    bad["duration"] = 3
    with pytest.raises(rtac.ScenarioError) as e:
        rtac.simulate(bad)
    assert message(e).startswith("scenario (dict): duration: expected a duration string"), message(e)
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b'duration = "3s"\n\xff\xfe')
    with pytest.raises(rtac.ScenarioError) as e:
        rtac.simulate(binary)
    assert message(e) == f"{binary}:2:1: invalid TOML: the file is not UTF-8 text"


def test_bad_arguments_raise_before_any_run():
    with pytest.raises(ValueError, match="backend: expected one of local, ray"):
        rtac.sweep(small(), backend="spark")
    with pytest.raises(TypeError, match=r"grid\['link\[0\].rate'\]: expected a list"):
        rtac.sweep(small(), grid={"link[0].rate": "10mbit"})
    with pytest.raises(TypeError, match=r"grid\['link\[0\].rate'\]: mixes number and str"):
        rtac.sweep(small(), grid={"link[0].rate": [1, "10mbit"]})
    with pytest.raises(TypeError, match=r"cannot use a set"):
        rtac.sweep(small(), grid={"link[0].rate": [{"10mbit"}]})
    with pytest.raises(ValueError, match="seeds: must be integers >= 0"):
        rtac.sweep(small(), seeds=[-1])
    with pytest.raises(ValueError, match="workers: expected an integer >= 1"):
        rtac.sweep(small(), workers=0)
    with pytest.raises(TypeError, match="scenario: expected a path, TOML text or a dict"):
        rtac.simulate(42)


def test_an_output_directory_of_another_scenario_is_refused(tmp_path):
    rtac.sweep(small(), seeds=[1], controllers=["rtac"], out=tmp_path, progress=False)
    other = small()
    other["link"][0]["rate"] = "30mbit"
    with pytest.raises(OSError, match="scenario.toml: holds runs of a different scenario"):
        rtac.sweep(other, seeds=[1], out=tmp_path, progress=False)
