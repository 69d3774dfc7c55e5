"""perf_report.py's section key: each CPU generation keeps its own section of docs/performance.md
(three generations of AMD EPYC VM report the same model name)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf_report  # noqa: E402


def cpuinfo(vendor, family, model, name):
    block = (f"processor\t: 0\nvendor_id\t: {vendor}\ncpu family\t: {family}\nmodel\t\t: {model}\n"
             f"model name\t: {name}\n")
    # A second CPU of another model: only the first block counts.
    return block + "\n" + block.replace(f"model\t\t: {model}", "model\t\t: 1")


def test_amd_generations_are_told_apart():
    assert perf_report.cpu_model_name(cpuinfo("AuthenticAMD", 25, 17, "AMD EPYC")) == \
        "AMD EPYC (Zen 4)"
    assert perf_report.cpu_model_name(cpuinfo("AuthenticAMD", 25, 1, "AMD EPYC")) == \
        "AMD EPYC (Zen 3)"
    assert perf_report.cpu_model_name(cpuinfo("AuthenticAMD", 26, 2, "AMD EPYC")) == \
        "AMD EPYC (Zen 5)"


def test_other_vendors_name_family_and_model():
    name = "Intel(R) Xeon(R) Processor"
    assert perf_report.cpu_model_name(cpuinfo("GenuineIntel", 6, 207, name)) == \
        f"{name} (family 6, model 207)"


def test_section_markers_carry_the_generation():
    perf_report.FORCED, perf_report.CPU_MODEL = "AVX2", "AMD EPYC (Zen 4)"
    begin, end = perf_report.markers()
    assert "--target AVX2 on AMD EPYC (Zen 4): begin" in begin
    assert "--target AVX2 on AMD EPYC (Zen 4): end" in end


def test_no_model_name():
    assert perf_report.cpu_model_name("processor\t: 0\n") is None


def test_peer_takes_its_fastest_round_library_its_median():
    rounds = [{"a": 3.0, "a:error": "x"}, {"a": 1.0}, {"a": 2.0}]
    assert perf_report.best_of_rounds(rounds) == {"a": 1.0, "a:error": "x"}
    assert perf_report.median_of_rounds(rounds)["a"] == 2.0
    # A kernel PyTorch lacks (None) stays None; a round without PyTorch makes the whole None.
    assert perf_report.best_of_rounds([{"b": None}, {"b": None}]) == {"b": None}
    assert perf_report.best_of_rounds([{"a": 1.0}, None]) is None
